import { explainRoute } from './explain.ts';
import { healthRoute, livezRoute, readyzRoute } from './health.ts';
import { downloadListRoute, listEntriesRoute } from './lists-read.ts';
import { addListEntriesRoute, removeListEntriesRoute, replaceListRoute } from './lists-write.ts';
import { openApiRoute } from './openapi.ts';
import { outcomeRoute } from './outcomes.ts';
import { scoreRoute } from './score.ts';

/**
 * Every route of the API, one line each: the app mounts them in this order (app.ts) and the
 * OpenAPI document lists them in it (openapi/document.ts). Adding a route is its definition
 * (http/route.ts's defineRoute) and one line here.
 */
export const API_ROUTES = [
  // First: every later route is matched against each scoring request otherwise.
  scoreRoute,
  outcomeRoute,
  explainRoute,
  listEntriesRoute,
  downloadListRoute,
  addListEntriesRoute,
  removeListEntriesRoute,
  replaceListRoute,
  healthRoute,
  livezRoute,
  readyzRoute,
  openApiRoute,
] as const;
