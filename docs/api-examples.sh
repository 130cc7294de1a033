#!/usr/bin/env bash
# A tour of the REST API with curl. JOE is the server's base URL. Without a
# TOKEN, the first step mints one on the server host for an existing user
# (joe-links users create --email dana@example.com made her).
set -euo pipefail
JOE=${JOE:-http://localhost:8080}
TOKEN=${TOKEN:-$(joe-links tokens create --email dana@example.com --name api-examples)}
AUTH="Authorization: Bearer $TOKEN"
JSON="Content-Type: application/json"
# The first "id" in a JSON response (a link's own id comes first); with jq: jq -r .id
first_id() { grep -o '"id":"[^"]*"' | head -n 1 | cut -d '"' -f 4; }

# Who does the token belong to?
curl -fsS -H "$AUTH" "$JOE/api/v1/users/me"; echo

# Create a link: go/handbook
ID=$(curl -fsS -H "$AUTH" -H "$JSON" "$JOE/api/v1/links" \
  -d '{"slug":"handbook","url":"https://example.com/handbook","title":"Team handbook","tags":["Docs","Onboarding"]}' | first_id)
echo "created $ID"

# List your links (pages of up to 200; pass next_cursor back as ?cursor=)
curl -fsS -H "$AUTH" "$JOE/api/v1/links?limit=20"; echo

# Read one link
curl -fsS -H "$AUTH" "$JOE/api/v1/links/$ID"; echo

# Update it: a full update sends url and everything it keeps (omitted title, description and tags are cleared)
curl -fsS -X PUT -H "$AUTH" -H "$JSON" "$JOE/api/v1/links/$ID" \
  -d '{"url":"https://example.com/handbook/v2","title":"Team handbook","tags":["Docs"],"expires_at":"2099-01-01T00:00:00Z"}'; echo

# Archive it, then bring it back (a body with only "archived" touches nothing else)
curl -fsS -X PUT -H "$AUTH" -H "$JSON" "$JOE/api/v1/links/$ID" -d '{"archived":true}'; echo
curl -fsS -X PUT -H "$AUTH" -H "$JSON" "$JOE/api/v1/links/$ID" -d '{"archived":false}'; echo

# Make it secure and share it with a colleague
curl -fsS -X PUT -H "$AUTH" -H "$JSON" "$JOE/api/v1/links/$ID" \
  -d '{"url":"https://example.com/handbook/v2","title":"Team handbook","tags":["Docs"],"visibility":"secure"}'; echo
curl -fsS -H "$AUTH" -H "$JSON" "$JOE/api/v1/links/$ID/shares" -d '{"email":"sam@example.com"}'; echo
curl -fsS -H "$AUTH" "$JOE/api/v1/links/$ID/shares"; echo

# Tags you can see, and the links carrying one
curl -fsS -H "$AUTH" "$JOE/api/v1/tags"; echo
curl -fsS -H "$AUTH" "$JOE/api/v1/tags/docs/links"; echo

# Delete it (204, no body); the slug is free again
curl -fsS -X DELETE -H "$AUTH" "$JOE/api/v1/links/$ID"
echo "deleted $ID"
