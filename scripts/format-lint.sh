#!/usr/bin/env bash
# Checks formatting with the repository's .swift-format (`swift format lint`), failing on NEW violations only: most
# of the code predates the check, so the violations it had then are counted per file and rule in
# scripts/format-lint-baseline.txt, and a file may only keep or lower its counts. New files start at zero.
#
#   scripts/format-lint.sh            check (exit 1 on a new violation, listing them)
#   scripts/format-lint.sh --update   write the current counts as the baseline (after fixing, to lock the gain in)
set -euo pipefail
cd "$(dirname "$0")/.."
baseline=scripts/format-lint-baseline.txt
current=$(mktemp)
trap 'rm -f "$current" "$current.lines"' EXIT
swift format lint --recursive --configuration .swift-format Sources Tests >"$current.lines" 2>&1 || true
# "path:line:column: warning: [Rule] message" -> "count path Rule"
sed -nE 's/^([^:]+):[0-9]+:[0-9]+: (warning|error): \[([A-Za-z]+)\].*/\1 \3/p' "$current.lines" | sort | uniq -c \
    | awk '{print $2, $3, $1}' >"$current"
if [ "${1:-}" = "--update" ]; then
    cp "$current" "$baseline"
    echo "format-lint: baseline written: $(awk '{s += $3} END {print s + 0}' "$baseline") violations in $(wc -l <"$baseline") file/rule pairs"
    exit 0
fi
[ -f "$baseline" ] || { echo "format-lint: no $baseline; run scripts/format-lint.sh --update" >&2; exit 2; }
new=$(awk 'NR == FNR { allowed[$1 " " $2] = $3; next }
           { key = $1 " " $2; if ($3 > (key in allowed ? allowed[key] : 0))
               printf "%s: %d %s violation(s), %d allowed\n", $1, $3, $2, (key in allowed ? allowed[key] : 0) }' \
      "$baseline" "$current")
if [ -n "$new" ]; then
    echo "format-lint: new formatting violations (swift format lint; fix them with swift format -i FILE):"
    echo "$new"
    echo "format-lint: the lines:"
    while read -r file rule _; do grep -F "$file:" "$current.lines" | grep -F "[$rule]" || true; done <<<"$(echo "$new" | sed -E 's/^([^:]+): [0-9]+ ([A-Za-z]+).*/\1 \2/')"
    exit 1
fi
echo "format-lint: no new violations ($(awk '{s += $3} END {print s + 0}' "$current") left of the baseline's $(awk '{s += $3} END {print s + 0}' "$baseline"))"
