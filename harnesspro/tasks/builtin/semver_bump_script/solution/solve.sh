#!/bin/bash
# Reference solution: a bash script using [[ =~ ]] and BASH_REMATCH.

printf '%s\n' '#!/bin/bash' > /workspace/bump
cat >> /workspace/bump <<'SH'
bump_one() {
    local re='^(v?)(0|[1-9][0-9]*)\.(0|[1-9][0-9]*)\.(0|[1-9][0-9]*)(-[0-9A-Za-z-]+(\.[0-9A-Za-z-]+)*)?$'
    [[ $# -eq 2 && $1 =~ $re ]] || return 1
    local v=${BASH_REMATCH[1]} major=${BASH_REMATCH[2]} minor=${BASH_REMATCH[3]}
    local patch=${BASH_REMATCH[4]} pre=${BASH_REMATCH[5]}
    case $2 in
        major) echo "$v$((major + 1)).0.0" ;;
        minor) echo "$v$major.$((minor + 1)).0" ;;
        patch) if [[ -n $pre ]]; then echo "$v$major.$minor.$patch"; else echo "$v$major.$minor.$((patch + 1))"; fi ;;
        *) return 1 ;;
    esac
}
if [[ $# -eq 0 ]]; then
    while read -r -a fields || [[ ${#fields[@]} -gt 0 ]]; do
        [[ ${#fields[@]} -eq 0 ]] && continue
        bump_one "${fields[@]}" || echo invalid
        fields=()
    done
    exit 0
fi
bump_one "$@" || { echo invalid >&2; exit 1; }
SH

chmod 755 /workspace/bump

/workspace/bump < /workspace/requests.txt > /workspace/bumped.txt
