#!/bin/bash
# The seed's quick-start guard, verbatim: block any Bash command containing `rm -rf`.
input=$(cat)
command=$(echo "$input" | jq -r '.tool_input.command')
if echo "$command" | grep -q 'rm -rf'; then
  echo "Dangerous command blocked: $command" >&2
  exit 2
fi
exit 0
