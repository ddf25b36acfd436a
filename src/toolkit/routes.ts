/**
 * A plugin's own HTTP routes (its `routes`, `adminRoutes`, `responders`): JSON replies and errors,
 * an admin body checked against a schema, the admin bearer a route presents, routes placed on the
 * operator port, and escaped HTML for a page. Used by the plugins that answer besides the API
 * endpoints: ledger, status, metrics, dashboard, the messages ingress's models list.
 */

export { sendError, sendJson } from '../http/respond.js';
export { handled, validBody } from '../admin/admin-body.js';
export { presentedBearer } from '../admin/admin-auth.js';
export { OPERATOR_PORT_PROPERTIES, placeOperatorRoutes } from '../http/side-server.js';
export { html, SafeHtml } from '../http/html.js';
