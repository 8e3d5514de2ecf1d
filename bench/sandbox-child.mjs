// The sandbox in a child process of its own (`invoice-mirror sandbox --admin`), so that its CPU and
// memory are not counted as the mirror's; with its admin routes, for the benchmarks.
import { spawn } from 'node:child_process';
import { request } from 'undici';

const AUTH = `Basic ${Buffer.from('sandbox:sandbox').toString('base64')}`;

/**
 * Starts it with these arguments after `sandbox --admin --port P`; resolves once it listens. A
 * port another program holds (this machine has some in the range) means another try elsewhere.
 */
export async function startSandboxChild(cli, args, tries = 5) {
  for (let attempt = 1; ; attempt++) {
    try {
      return await startOnPort(cli, args, 4100 + Math.floor(Math.random() * 800));
    } catch (error) {
      if (attempt >= tries || !error.portInUse) throw error;
    }
  }
}

function startOnPort(cli, args, port) {
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
    child.on('exit', (code) =>
      reject(
        Object.assign(new Error(`sandbox exited with ${code}`), {
          portInUse: code === 2 && !out.includes('listening'),
        }),
      ),
    );
  });
}
