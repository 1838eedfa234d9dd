#!/bin/sh
# PostToolUse Write|Edit: feedback for the agent after it changed a TypeScript file.
file=$(jq -r '.tool_input.file_path // ""')
case "$file" in
  *.ts) printf '{"hookSpecificOutput":{"hookEventName":"PostToolUse","additionalContext":"%s changed: run the linter on it."}}\n' "$file" ;;
esac
exit 0
