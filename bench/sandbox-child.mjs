// The sandbox in a child process of its own (`invoice-mirror sandbox --admin`), so that its CPU and
// memory are not counted as the mirror's; with its admin routes, for the benchmarks.
import { spawn } from 'node:child_process';
import { request } from 'undici';

const AUTH = `Basic ${Buffer.from('sandbox:sandbox').toString('base64')}`;

/** Starts it with these arguments after `sandbox --admin --port P`; resolves once it listens. */
export function startSandboxChild(cli, args) {
  const port = 4100 + Math.floor(Math.random() * 800);
  const child = spawn(process.execPath, [cli, 'sandbox', '--admin', '--port', String(port), ...args], {
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  const origin = `http://127.0.0.1:${port}`;
  const admin = async (method, path, body) => {
    const answer = await request(`${origin}/_admin/${path}`, {
      method,
      reset: true,
      headers: { authorization: AUTH, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    const text = await answer.body.text();
    return text.startsWith('[') || text.startsWith('{') ? JSON.parse(text) : text;
  };
  return new Promise((resolve, reject) => {
    let out = '';
    child.stdout.on('data', (chunk) => {
      out += chunk;
      if (out.includes('listening')) resolve({ child, admin, api: `${origin}/api/v1` });
    });
    child.on('exit', (code) => reject(new Error(`sandbox exited with ${code}`)));
  });
}
