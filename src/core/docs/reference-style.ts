/**
 * The reference pages' own styles (`/__sandbox/docs/reference.css`), after Swagger UI's: the line
 * above it, and what a phone needs. At 390 px Swagger UI split an operation id mid-word ("getP",
 * "et": its `word-break: break-word` in a squeezed row), cut the Servers menu at its edge (a select
 * shows one line), and let a responses table run past the screen. Swagger UI's element is the
 * `swagger-ui` size container its own narrow rules answer to; these answer to it too.
 *
 * May import: core/docs, core/admin, core/api, core/http, core/limits.ts, zod. No msw, no node:*, no adapter.
 */
export const REFERENCE_STYLE = `.sandbox-key { font: 14px/1.4 sans-serif; margin: 12px 20px; }

/* An operation id is a name to copy: it breaks nowhere, the path and the summary beside it wrap instead. */
.swagger-ui .opblock .opblock-summary-operation-id { word-break: normal; overflow-wrap: normal; }

/* The Servers menu shows the whole of the chosen server, on as many lines as it takes. */
.swagger-ui .servers > label select { white-space: normal; height: auto; }

@container swagger-ui (max-width: 640px) {
  /*
   * The id on a line of its own under the path, lined up with it (the method's 80 px and 10 px);
   * the path and summary keep to the method's line however narrow an open operation leaves it.
   */
  .swagger-ui .opblock-summary-control { flex-wrap: wrap; row-gap: 4px; }
  .swagger-ui .opblock-summary-path-description-wrapper { flex-basis: 0; }
  .swagger-ui .opblock .opblock-summary-operation-id { flex-basis: 100%; padding-left: 90px; }

  /* Each response stacked, its code above its description: three columns do not fit. */
  .swagger-ui .responses-table,
  .swagger-ui .responses-table tbody,
  .swagger-ui .responses-table tr,
  .swagger-ui .responses-table td { display: block; }
  .swagger-ui .responses-table .responses-header { display: none; }
  .swagger-ui .responses-table .response-col_status { padding-bottom: 0; }
}
`
