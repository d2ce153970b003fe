#!/bin/bash
complete -W "up down" deploy
