// ReDoc for /openapi.json, with ReDoc's own telemetry switched off (its auto-start from a
// <redoc spec-url> element passes no options). The CSP of /redoc blocks every other origin too.
import { init } from "/redoc/redoc.standalone.js";

init("/openapi.json", { disableTelemetry: true, hideDownloadButtons: false }, document.getElementById("redoc"));
