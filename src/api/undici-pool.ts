/**
 * undici's connection pool without the rest of undici. `import { Pool } from 'undici'` evaluates
 * the whole package (fetch, WebSocket, cookies, the cache API): about 50 ms of every command's
 * start on a 2-core VM, where the pool and its `request` take 20 (bench/perf.mjs, "first
 * request"). The package has no export map, so its own modules are imported, with its own types.
 */
import PoolClass from 'undici/lib/dispatcher/pool.js';
import request from 'undici/lib/api/api-request.js';

// What undici's index does for every dispatcher (`Object.assign(Dispatcher.prototype, api)`),
// for the one method the client uses.
PoolClass.prototype.request ??= request;

export const Pool = PoolClass;
export type Pool = InstanceType<typeof PoolClass>;
