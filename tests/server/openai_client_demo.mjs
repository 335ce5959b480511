// A demo, not a test: the official `openai` npm client against `hearth-cli serve`.
// It streams a chat completion and prints the time to first token, then sends a second
// request that extends the first (its messages, the reply, a new question) and prints
// how many prompt tokens the server reused from the first request's KV cache.
//
//   mkdir /tmp/openai-demo && (cd /tmp/openai-demo && npm install openai)
//   OPENAI_DEMO_DIR=/tmp/openai-demo node tests/server/openai_client_demo.mjs \
//       build/bin/hearth-cli ../shared/testdata/models/stories260K.gguf
import {readFileSync} from 'node:fs';
import {createRequire} from 'node:module';
import {performance} from 'node:perf_hooks';

import {startServer} from './hearth_serve.mjs';

const [cli, model] = process.argv.slice(2);
if (!cli || !model || !process.env.OPENAI_DEMO_DIR) {
    console.error('usage: OPENAI_DEMO_DIR=DIR node openai_client_demo.mjs HEARTH_CLI MODEL.gguf');
    process.exit(2);
}
const require = createRequire(process.env.OPENAI_DEMO_DIR + '/');
const OpenAI = require('openai').default ?? require('openai');
const {version} =
    JSON.parse(readFileSync(`${process.env.OPENAI_DEMO_DIR}/node_modules/openai/package.json`, 'utf8'));

// Streams one chat completion; returns its text, time to first token and usage.
async function streamChat(client, modelId, messages, maxTokens) {
    const started = performance.now();
    let firstTokenMs = null;
    let text = '';
    let usage = null;
    const stream = await client.chat.completions.create({
        model : modelId,
        messages,
        stream : true,
        stream_options : {include_usage : true},
        max_tokens : maxTokens,
        temperature : 0.7,
        seed : 7,
    });
    for await (const chunk of stream) {
        const piece = chunk.choices[0]?.delta?.content ?? '';
        if (piece && firstTokenMs === null) firstTokenMs = performance.now() - started;
        text += piece;
        if (chunk.usage) usage = chunk.usage;
    }
    return {text, firstTokenMs, totalMs : performance.now() - started, usage};
}

const {server, url} = await startServer(cli, model, [ '--api-key', 'demo-key' ]);
try {
    const client = new OpenAI({baseURL : `${url}/v1`, apiKey : 'demo-key'});
    const models = await client.models.list();
    const modelId = models.data[0].id;
    console.log(`openai ${version} client, server ${url}, model ${modelId}`);

    // Short: stories260K sees 128 tokens and ChatML's markers take ~20 of them per message. A
    // second request that overflowed the context would shift its first turn out of view, and
    // cached_tokens would count only the reused tokens still in view ("37 of 52" on stories260K).
    const first = [ {role : 'user', content : 'A dog.'} ];
    const one = await streamChat(client, modelId, first, 12);
    console.log(`\n1st request (streamed): ${JSON.stringify(one.text)}`);
    console.log(
        `  time to first token ${one.firstTokenMs.toFixed(1)} ms, whole reply ${one.totalMs.toFixed(1)} ms`);
    console.log(`  prompt ${one.usage.prompt_tokens} tokens, reused ${
                    one.usage.prompt_tokens_details.cached_tokens}, ` +
                `generated ${one.usage.completion_tokens}`);

    const second = [
        ...first, {role : 'assistant', content : one.text},
        {role : 'user', content : 'Then?'}
    ];
    const two = await streamChat(client, modelId, second, 12);
    console.log(`\n2nd request (extends the 1st): ${JSON.stringify(two.text)}`);
    console.log(
        `  time to first token ${two.firstTokenMs.toFixed(1)} ms, whole reply ${two.totalMs.toFixed(1)} ms`);
    const reused = two.usage.prompt_tokens_details.cached_tokens;
    console.log(`  prompt ${two.usage.prompt_tokens} tokens, reused ${reused} from the 1st request's cache ` +
                `(${(100 * reused / two.usage.prompt_tokens).toFixed(0)}%), computed ${
                    two.usage.prompt_tokens - reused}`);

    const whole = await client.chat.completions.create({model : modelId, messages : first, max_tokens : 16});
    console.log(`\nnon-streamed: ${JSON.stringify(whole.choices[0].message.content)} (finish_reason ${
        whole.choices[0].finish_reason})`);
    try {
        await new OpenAI({baseURL : `${url}/v1`, apiKey : 'wrong'}).models.list();
    } catch (error) {
        console.log(`wrong key: ${error.status} ${error.error?.code ?? ''}`);
    }
} finally {
    server.kill('SIGTERM');
}
