#!/bin/sh
# PreToolUse Write|Edit: some files belong to another team.
file=$(jq -r '.tool_input.file_path // ""')
case "$file" in
  */src/checkout.ts) echo "$file is owned by the payments team: open a ticket instead of editing it" >&2; exit 2 ;;
esac
exit 0
