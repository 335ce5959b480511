// The official `openai` npm client sends images to `hearth-cli serve --mmproj` (ctest
// test_openai_client_images, registered beside test_openai_client; see CMakeLists.txt): image_url
// content parts with base64 data URLs, the reply at temperature 0 following the image (the same
// image twice the same reply, streamed or not; another image another reply), and the refusals the
// client surfaces as 400 errors: a remote URL (never fetched) and a damaged image, after which the
// server still answers. Every check throws on failure; the exit status is the verdict.
//
//   OPENAI_NODE_DIR=DIR node openai_client_images_test.mjs HEARTH_CLI MODEL.gguf MMPROJ.gguf IMAGES_DIR
import assert from 'node:assert/strict';
import {readFileSync} from 'node:fs';
import {createRequire} from 'node:module';

import {runChecks} from './hearth_serve.mjs';

const [cli, model, mmproj, imagesDir] = process.argv.slice(2);
if (!cli || !model || !mmproj || !imagesDir || !process.env.OPENAI_NODE_DIR) {
    console.error(
        'usage: OPENAI_NODE_DIR=DIR node openai_client_images_test.mjs HEARTH_CLI MODEL.gguf MMPROJ.gguf IMAGES_DIR');
    process.exit(2);
}
const require = createRequire(process.env.OPENAI_NODE_DIR + '/');
const OpenAI = require('openai').default ?? require('openai');

const imageBytes = (name) => readFileSync(`${imagesDir}/${name}`);
const dataUrl = (bytes, type = 'image/png') => `data:${type};base64,${bytes.toString('base64')}`;
const grad = dataUrl(imageBytes('grad-56x56.png'));
const rings = dataUrl(imageBytes('rings-30x42.png'));

// A user message as the client's documentation writes one: text, then the image.
const about = (url, text = 'Describe this image.') => [{
    role : 'user',
    content : [ {type : 'text', text}, {type : 'image_url', image_url : {url, detail : 'auto'}} ]
}];

const checks = [];
const check = (name, fn) => checks.push({name, fn});

let client;
let modelId;
const ask = async (url, extra = {}) => {
    const reply = await client.chat.completions.create(
        {model : modelId, messages : about(url), max_tokens : 8, temperature : 0, ...extra});
    return reply;
};

check('GET /v1/models lists the model', async () => {
    const models = await client.models.list();
    assert.equal(models.data.length, 1);
    modelId = models.data[0].id;
});

check('an image in a data URL is read: the greedy reply follows it', async () => {
    const first = await ask(grad);
    assert.equal(first.object, 'chat.completion');
    assert.ok([ 'stop', 'length' ].includes(first.choices[0].finish_reason));
    const text = first.choices[0].message.content;
    assert.equal(typeof text, 'string');
    assert.equal((await ask(grad)).choices[0].message.content, text);
    const other = (await ask(rings)).choices[0].message.content;
    assert.notEqual(other, text);
    // The image's positions are part of the prompt.
    const plain = await client.chat.completions.create({
        model : modelId,
        messages : [ {role : 'user', content : [ {type : 'text', text : 'Describe this image.'} ]} ],
        max_tokens : 1,
    });
    assert.ok(first.usage.prompt_tokens > plain.usage.prompt_tokens,
              `${first.usage.prompt_tokens} vs ${plain.usage.prompt_tokens}`);
});

check('streamed, the same reply', async () => {
    const whole = (await ask(rings)).choices[0].message.content;
    let text = '';
    for await (const chunk of await client.chat.completions.create(
        {model : modelId, messages : about(rings), max_tokens : 8, temperature : 0, stream : true}))
        text += chunk.choices[0]?.delta?.content ?? '';
    assert.equal(text, whole);
});

check('a remote image URL is refused: the server never fetches', async () => {
    await assert.rejects(ask('https://example.com/cat.png'), (error) => {
        assert.equal(error.status, 400);
        assert.equal(error.code, 'invalid_image_url');
        assert.equal(error.param, 'messages[0].content[1].image_url.url');
        assert.match(error.message, /never fetches/);
        return true;
    });
});

check('a damaged image is a 400 naming it, and the server goes on', async () => {
    const png = imageBytes('grad-56x56.png');
    await assert.rejects(ask(dataUrl(png.subarray(0, png.length / 2))), (error) => {
        assert.equal(error.status, 400);
        assert.match(error.message, /image 1 of message 1: /); // the client puts the status first
        return true;
    });
    assert.equal(typeof (await ask(grad)).choices[0].message.content, 'string');
});

await runChecks(cli, model, [ '--mmproj', mmproj, '-t', '1' ], (url) => {
    client = new OpenAI({baseURL : `${url}/v1`, apiKey : 'unused', maxRetries : 0});
}, checks);
