// Starting `hearth-cli serve` for the Node scripts beside this file (the openai client's
// test and demo): a free port, and the URL read from the line that says where it listens.
import {spawn} from 'node:child_process';

export function startServer(cli, model, extraArgs = []) {
    const server = spawn(cli, [ 'serve', '-m', model, '--port', '0', ...extraArgs ],
                         {stdio : [ 'ignore', 'ignore', 'pipe' ]});
    return new Promise((resolve, reject) => {
        let said = '';
        server.stderr.on('data', (bytes) => {
            said += bytes;
            const found = said.match(/listening on (http:\/\/\S+)/);
            if (found) resolve({server, url : found[1]});
        });
        server.on('exit', (code) => reject(new Error(`hearth-cli serve exited with ${code}: ${said}`)));
    });
}

// Runs `checks` ({name, fn}, in order) against a server started as startServer does;
// `withUrl(url)` sets the scripts' client up before the first. Prints PASS or FAIL for each and
// exits 1 when any failed.
export async function runChecks(cli, model, extraArgs, withUrl, checks) {
    const {server, url} = await startServer(cli, model, extraArgs);
    let failed = 0;
    try {
        withUrl(url);
        for (const {name, fn} of checks) {
            try {
                await fn();
                console.log(`PASS ${name}`);
            } catch (error) {
                ++failed;
                console.log(`FAIL ${name}: ${error.stack ?? error}`);
            }
        }
    } finally {
        server.kill('SIGTERM');
    }
    console.log(`${checks.length - failed} passed, ${failed} failed`);
    process.exit(failed ? 1 : 0);
}
