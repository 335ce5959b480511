// The official `openai` npm client against `hearth-cli serve` (ctest test_openai_client,
// registered where Node and the package are found; see CMakeLists.txt): models, chat
// completions streamed and not, legacy completions, stop strings, prefix reuse for a
// request that extends an earlier one, a tool loop (a forced call, streamed and not, its result
// sent back, an answer), a client that aborts mid-stream, a wrong key.
// Every check throws on failure; the exit status is the verdict.
//
//   OPENAI_NODE_DIR=DIR node openai_client_test.mjs HEARTH_CLI MODEL.gguf
import assert from 'node:assert/strict';
import {createRequire} from 'node:module';

import {runChecks} from './hearth_serve.mjs';

const [cli, model] = process.argv.slice(2);
if (!cli || !model || !process.env.OPENAI_NODE_DIR) {
    console.error('usage: OPENAI_NODE_DIR=DIR node openai_client_test.mjs HEARTH_CLI MODEL.gguf');
    process.exit(2);
}
const require = createRequire(process.env.OPENAI_NODE_DIR + '/');
const OpenAI = require('openai').default ?? require('openai');

async function collect(stream) {
    let text = '';
    let finish = null;
    let usage = null;
    let chunks = 0;
    for await (const chunk of stream) {
        ++chunks;
        const choice = chunk.choices[0];
        if (choice?.delta?.content) text += choice.delta.content;
        if (choice?.finish_reason) finish = choice.finish_reason;
        if (chunk.usage) usage = chunk.usage;
    }
    return {text, finish, usage, chunks};
}

const checks = [];
const check = (name, fn) => checks.push({name, fn});

let client;
let modelId;
const story = [ {role : 'user', content : 'Tell me a story about a cat.'} ];

check('GET /v1/models lists the loaded model', async () => {
    const models = await client.models.list();
    assert.equal(models.data.length, 1);
    modelId = models.data[0].id;
    assert.ok(modelId.length > 0);
    assert.equal(models.data[0].object, 'model');
});

check('a non-streamed chat completion', async () => {
    const reply = await client.chat.completions.create({model : modelId, messages : story, max_tokens : 12, temperature : 0});
    assert.equal(reply.object, 'chat.completion');
    assert.equal(reply.choices[0].message.role, 'assistant');
    assert.equal(typeof reply.choices[0].message.content, 'string');
    assert.ok(reply.choices[0].message.content.length > 0);
    assert.ok([ 'stop', 'length' ].includes(reply.choices[0].finish_reason));
    assert.ok(reply.usage.prompt_tokens > 0);
    assert.ok(reply.usage.completion_tokens > 0 && reply.usage.completion_tokens <= 12);
    assert.equal(reply.usage.total_tokens, reply.usage.prompt_tokens + reply.usage.completion_tokens);
});

check('streamed and non-streamed greedy replies agree', async () => {
    const whole = await client.chat.completions.create({model : modelId, messages : story, max_tokens : 16, temperature : 0});
    const streamed = await collect(await client.chat.completions.create(
        {model : modelId, messages : story, max_tokens : 16, temperature : 0, stream : true,
         stream_options : {include_usage : true}}));
    assert.ok(streamed.chunks > 2);
    assert.equal(streamed.text, whole.choices[0].message.content);
    assert.equal(streamed.finish, whole.choices[0].finish_reason);
    assert.equal(streamed.usage.completion_tokens, whole.usage.completion_tokens);
});

check('the same seed gives the same sampled reply', async () => {
    const ask = () => client.chat.completions.create(
        {model : modelId, messages : story, max_tokens : 16, temperature : 0.9, top_p : 0.95, seed : 11});
    const one = await ask();
    const two = await ask();
    assert.equal(one.choices[0].message.content, two.choices[0].message.content);
});

check('a request extending an earlier one reuses its prefix', async () => {
    const first = await client.chat.completions.create({model : modelId, messages : story, max_tokens : 8, seed : 3});
    const extended = [...story, first.choices[0].message, {role : 'user', content : 'What next?'} ];
    const second = await client.chat.completions.create({model : modelId, messages : extended, max_tokens : 8, seed : 3});
    const reused = second.usage.prompt_tokens_details.cached_tokens;
    assert.ok(second.usage.prompt_tokens > first.usage.prompt_tokens);
    assert.ok(reused >= first.usage.prompt_tokens, `reused ${reused} of ${second.usage.prompt_tokens}`);
    assert.ok(reused < second.usage.prompt_tokens);
});

check('legacy completions', async () => {
    const reply = await client.completions.create({model : modelId, prompt : 'Once upon a time', max_tokens : 10});
    assert.equal(reply.object, 'text_completion');
    assert.equal(typeof reply.choices[0].text, 'string');
    assert.ok(reply.choices[0].text.length > 0);
    const streamed = await client.completions.create({model : modelId, prompt : 'Once upon a time', max_tokens : 10, stream : true});
    let text = '';
    for await (const chunk of streamed) text += chunk.choices[0]?.text ?? '';
    assert.ok(text.length > 0);
});

check('a stop string ends the reply before it', async () => {
    const whole = await client.chat.completions.create({model : modelId, messages : story, max_tokens : 24, temperature : 0});
    const text = whole.choices[0].message.content;
    const words = text.trim().split(/\s+/);
    assert.ok(words.length >= 3, text);
    const stop = words[2];
    const stopped = await client.chat.completions.create(
        {model : modelId, messages : story, max_tokens : 24, temperature : 0, stop : [ stop ]});
    assert.equal(stopped.choices[0].finish_reason, 'stop');
    assert.ok(!stopped.choices[0].message.content.includes(stop));
    assert.ok(text.startsWith(stopped.choices[0].message.content));
});

check('a client that aborts mid-stream leaves the server serving', async () => {
    const controller = new AbortController();
    const stream = await client.chat.completions.create(
        {model : modelId, messages : story, max_tokens : 100, stream : true}, {signal : controller.signal});
    let seen = 0;
    // The client ends the iteration quietly once its signal is aborted (after the chunks it
    // already holds: whether generation stopped is test_api_http's to check, on the server).
    for await (const chunk of stream) {
        if (chunk.choices[0]?.delta?.content && ++seen === 2) controller.abort();
    }
    assert.ok(seen >= 2);
    const after = await client.chat.completions.create({model : modelId, messages : story, max_tokens : 4});
    assert.ok(after.choices[0].message.content.length > 0);
});

const weatherTool = {
    type : 'function',
    function : {
        name : 'get_weather',
        description : 'The weather in a city',
        parameters : {
            type : 'object',
            properties : {city : {type : 'string', maxLength : 12}, days : {type : 'integer'}},
            required : [ 'city', 'days' ],
            additionalProperties : false,
        },
    },
};

check('a tool loop: a forced call, its result, then an answer', async () => {
    const question = [ {role : 'user', content : 'What is the weather in Paris?'} ];
    const first = await client.chat.completions.create({model : modelId, messages : question, tools : [ weatherTool ],
                                                        tool_choice : 'required', max_tokens : 200, seed : 5});
    const message = first.choices[0].message;
    assert.equal(first.choices[0].finish_reason, 'tool_calls');
    assert.equal(message.tool_calls.length, 1);
    const call = message.tool_calls[0];
    assert.equal(call.type, 'function');
    assert.equal(call.function.name, 'get_weather');
    assert.ok(call.id.length > 0);
    const args = JSON.parse(call.function.arguments);
    assert.equal(typeof args.city, 'string');
    assert.ok(args.city.length <= 12);
    assert.ok(Number.isInteger(args.days));
    assert.deepEqual(Object.keys(args).sort(), [ 'city', 'days' ]);

    // The same call streamed: its deltas put together give the same call.
    const stream = await client.chat.completions.create({model : modelId, messages : question, tools : [ weatherTool ],
                                                         tool_choice : 'required', max_tokens : 200, seed : 5,
                                                         stream : true});
    const calls = [];
    let finish = null;
    let content = '';
    for await (const chunk of stream) {
        const choice = chunk.choices[0];
        if (choice?.delta?.content) content += choice.delta.content;
        for (const delta of choice?.delta?.tool_calls ?? []) {
            if (!calls[delta.index]) {
                assert.ok(delta.id && delta.type === 'function' && delta.function.name, JSON.stringify(delta));
                calls[delta.index] = {name : delta.function.name, arguments : ''};
            }
            calls[delta.index].arguments += delta.function?.arguments ?? '';
        }
        if (choice?.finish_reason) finish = choice.finish_reason;
    }
    assert.equal(finish, 'tool_calls');
    assert.equal(content.trim(), '');
    assert.deepEqual(calls, [ {name : call.function.name, arguments : call.function.arguments} ]);

    // The tool's result goes back; the model answers in text (no tools offered this time).
    const answer = await client.chat.completions.create({
        model : modelId,
        messages : [...question, message, {role : 'tool', tool_call_id : call.id, content : 'Sunny, 24 degrees.'} ],
        max_tokens : 12,
        seed : 5
    });
    assert.ok([ 'stop', 'length' ].includes(answer.choices[0].finish_reason));
    assert.equal(typeof answer.choices[0].message.content, 'string');
    assert.ok(answer.choices[0].message.content.length > 0);
    const plain = await client.chat.completions.create({model : modelId, messages : question, max_tokens : 1});
    assert.ok(answer.usage.prompt_tokens > plain.usage.prompt_tokens + 10, 'the call and its result are in the prompt');
});

check('a wrong key is refused with 401', async () => {
    const wrong = new OpenAI({baseURL : client.baseURL, apiKey : 'wrong', maxRetries : 0});
    await assert.rejects(wrong.models.list(), (error) => {
        assert.equal(error.status, 401);
        assert.equal(error.code, 'invalid_api_key');
        return true;
    });
});

check('an unknown model is refused in the OpenAI error shape', async () => {
    await assert.rejects(
        client.chat.completions.create({model : 'no-such-model', messages : story, max_tokens : 4}),
        (error) => {
            assert.ok(error.status >= 400 && error.status < 500, `status ${error.status}`);
            assert.equal(typeof error.message, 'string');
            return true;
        });
});

await runChecks(cli, model, [ '--api-key', 'test-key', '-t', '1' ], (url) => {
    client = new OpenAI({baseURL : `${url}/v1`, apiKey : 'test-key', maxRetries : 0});
}, checks);
