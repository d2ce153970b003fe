"""Retrospective mode: sessions a user already has -> analyzer -> planner -> candidates."""
