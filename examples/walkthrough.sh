#!/usr/bin/env bash
# The first ten minutes with mdstore: every operation of the REST API with curl, top to bottom.
#
#   npm start                      # in one terminal, from the repository root
#   bash examples/walkthrough.sh   # in another
#
# It creates an account with the admin CLI (or uses $KEY when set), then works in a fresh temporary
# folder, so it can be run again and again. MDSTORE_URL picks another server (default
# http://127.0.0.1:8080); the CLI reads the same MDSTORE_* variables as the server. Needs bash,
# curl 7.76 or newer and node (no jq). The part between the markers is what the README shows.
set -euo pipefail

REPO=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
if [ -z "${KEY:-}" ]; then
  ACCOUNT=$(cd "$REPO" && npm run -s mdstore -- accounts create --name "walkthrough-$(date +%s)-$$")
  KEY=$(node -p 'JSON.parse(process.argv[1]).api_key' "$ACCOUNT")
fi
cd "$(mktemp -d)"
echo "working in $PWD"

# --- walkthrough: start ---
API=${MDSTORE_URL:-http://127.0.0.1:8080}/api
# curl with the key; stops with the error body on any 4xx/5xx
api() { curl -sS --fail-with-body -H "Authorization: Bearer $KEY" "$@" && echo; }
# reads JSON on stdin, prints one field: json id
json() { node -e 'console.log(JSON.parse(require("fs").readFileSync(0, "utf8"))[process.argv[1]])' "$1"; }

# Projects: create one (its id is kept in NOTES), list, get, update
api -H 'Content-Type: application/json' -d '{"name":"Team notes","description":"Notes"}' \
  "$API/projects" | tee project.json
NOTES=$(json id < project.json)
api "$API/projects"
api "$API/projects/$NOTES"
api -X PUT -H 'Content-Type: application/json' -d '{"description":"Notes of the whole team"}' \
  "$API/projects/$NOTES"

# Files: upload (with metadata), list, download, update metadata, replace content, delete
printf '# Hello\n\nThe first version.\n' > hello.md
api -F file=@hello.md -F 'metadata={"tags":["intro"]}' "$API/projects/$NOTES/files"
printf '# Meeting notes\n' > 'meeting notes.md'
api -F 'file=@meeting notes.md' "$API/projects/$NOTES/files"
api "$API/projects/$NOTES/files"
# Folders: "/" in a filename; a page of one folder, and the top level with its folders
api -F 'file=@hello.md;filename=guides/setup.md' "$API/projects/$NOTES/files"
api "$API/projects/$NOTES/files?prefix=guides%2F&limit=10"
api "$API/projects/$NOTES/files?delimiter=%2F"
mkdir downloads
api -OJ --output-dir downloads "$API/projects/$NOTES/files/hello.md"   # saves downloads/hello.md
# A filename is one path segment, percent-encoded: a space is %20 (and with folders, guides%2Fsetup.md)
api "$API/projects/$NOTES/files/meeting%20notes.md"
api -X PUT -H 'Content-Type: application/json' -d '{"metadata":{"tags":["intro","reviewed"]}}' \
  "$API/projects/$NOTES/files/hello.md"
printf '# Hello\n\nThe second version.\n' > hello.md
api -X PUT -H 'Content-Type: text/markdown' --data-binary @hello.md \
  "$API/projects/$NOTES/files/hello.md/content"
api "$API/projects/$NOTES/files/hello.md"
api -X DELETE "$API/projects/$NOTES/files/meeting%20notes.md"

# Delete the project (an account's default project cannot be deleted: 403)
api -X DELETE "$API/projects/$NOTES"
# --- walkthrough: end ---

echo "done: the files are in $PWD"
