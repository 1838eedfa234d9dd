#!/bin/sh
# Stop: keep the agent working once if it never ran the tests; honours stop_hook_active so it cannot loop.
input=$(cat)
if [ "$(printf '%s' "$input" | jq -r '.stop_hook_active')" = "true" ]; then exit 0; fi
printf '{"decision":"block","reason":"You have not run the tests yet: run npm test, then stop."}\n'
