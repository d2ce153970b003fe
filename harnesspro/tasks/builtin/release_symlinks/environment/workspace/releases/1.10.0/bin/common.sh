# sourced by the other scripts, not executable
LOG=/var/log/app.log
