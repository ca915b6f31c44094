// Runs the order state's SQL test (test_order_sql.cpp, the binary given as argv[2]) against a fresh
// PostgreSQL server (harness.mjs startPostgres); exits with the test's status.
import { spawnSync } from 'node:child_process';

import { startPostgres } from './harness.mjs';

const pg = await startPostgres();
let status = 1;
try {
  const r = spawnSync(process.argv[2], [], { stdio: 'inherit', env: { ...process.env, PAYWASM_TEST_DB: pg.url } });
  status = r.status ?? 1;
} finally {
  await pg.destroy();
}
process.exit(status);
