#!/bin/sh
# Stricter than confirm-force-push: a force push is never allowed.
command=$(jq -r '.tool_input.command')
case "$command" in
  *"push --force"*|*"push -f"*) echo "Force pushes are not allowed here: $command" >&2; exit 2 ;;
esac
exit 0
