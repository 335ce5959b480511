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
