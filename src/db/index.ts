export { openDatabase, type DatabaseHandle, type DatabaseOptions } from './connect.js';
export { migrate, schemaProblem } from './migrate.js';
export { lockKey, type LockPurpose } from './locks.js';
export { jsonb } from './json.js';
export type { Database } from './schema.js';
export { serviceLock, type Exclusive } from './service-lock.js';
