#!/usr/bin/env sh
# A third-party MCP client against wfapi: the MCP Inspector's command line lists the tools of
# POST /mcp, calls list_workflows, and does the same over stdio through `wfapi mcp`.
#
#   WFAPI_URL=http://127.0.0.1:4000 WFAPI_API_KEY=wfk_... scripts/mcp-inspector.sh
#
# (`npm start` prints both.) It fetches @modelcontextprotocol/inspector-cli with npx (network on
# first use). The inspector-cli package has no engine bound and runs on Node 20; the umbrella
# package @modelcontextprotocol/inspector needs Node 22, hence the -p below.
set -eu
: "${WFAPI_URL:?set WFAPI_URL to a running wfapi server}"
: "${WFAPI_API_KEY:?set WFAPI_API_KEY to an API key of that server}"
INSPECTOR="${INSPECTOR_CMD:-npx -y -p @modelcontextprotocol/inspector-cli@0.21.2 mcp-inspector-cli}"
ROOT=$(cd "$(dirname "$0")/.." && pwd)
# inspector-cli 0.21.2 looks for "../package.json" relative to the working directory (and then
# imports it relative to itself): from scripts/ the test succeeds and it reads its own.
cd "$ROOT/scripts"

echo "== tools/list over Streamable HTTP ($WFAPI_URL/mcp)"
$INSPECTOR "$WFAPI_URL/mcp" --transport http --header "Authorization: Apikey $WFAPI_API_KEY" --method tools/list |
  node -e 'let s="";process.stdin.on("data",d=>s+=d).on("end",()=>{const t=JSON.parse(s).tools;console.log(t.length+" tools: "+t.map(x=>x.name).join(", "))})'

echo "== tools/call list_workflows over Streamable HTTP"
$INSPECTOR "$WFAPI_URL/mcp" --transport http --header "Authorization: Apikey $WFAPI_API_KEY" \
  --method tools/call --tool-name list_workflows --tool-arg pageSize=3 |
  node -e 'let s="";process.stdin.on("data",d=>s+=d).on("end",()=>{const r=JSON.parse(s);console.log("isError: "+Boolean(r.isError)+"\n"+r.content[0].text)})'

echo "== tools/list over stdio (wfapi mcp)"
# The inspector passes a child only a safe few variables of its own: env(1) sets the connection.
$INSPECTOR --transport stdio --method tools/list \
  env "WFAPI_URL=$WFAPI_URL" "WFAPI_API_KEY=$WFAPI_API_KEY" node --import tsx "$ROOT/src/cli/dev.ts" mcp |
  node -e 'let s="";process.stdin.on("data",d=>s+=d).on("end",()=>{const t=JSON.parse(s).tools;console.log(t.length+" tools: "+t.map(x=>x.name).join(", "))})'

echo "== a refused key over HTTP"
$INSPECTOR "$WFAPI_URL/mcp" --transport http --header "Authorization: Apikey wfk_wrong" --method tools/list 2>&1 | head -3 || true
