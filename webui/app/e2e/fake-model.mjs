// The one fake of the solo journeys: a language model. A tiny OpenAI-compatible
// chat-completions server (POST /v1/chat/completions with stream: true) that
// answers each request with the next reply of a script queue, streamed as
// chat.completion.chunk events, the way the server's llm client expects.
// The memory bank's background calls (the memory of a passage, the running
// summary) are answered apart from that queue, with a fixed text, so they
// never take a narration's reply whenever they happen to arrive.
import http from 'node:http';

const CREATED = 1700000000;

// The system prompts of the memory banks' calls (gameplay/narrative/memory_prompts.go, and a
// campaign's: gameplay/table/campaign_memory_text.go) and of a session's recap (gameplay/table/recap.go).
const MEMORY_CALL =
  /^You keep the (memory bank|running summary) of (?:an interactive story|a tabletop role-playing campaign)|^You are the narrator of a tabletop role-playing campaign, .* "Previously on…" recap/s;
export const FAKE_MEMORY = 'The fake model remembers this passage.';
export const FAKE_SUMMARY = 'The fake model sums up the story so far.';
const memoryCall = (body) => {
  const system = Array.isArray(body.messages) ? String(body.messages[0]?.content ?? '') : '';
  const m = MEMORY_CALL.exec(system);
  return m ? (m[1] === 'memory bank' ? 'memory' : 'summary') : null;
};

// pieces splits text into small chunks (a few words each) so the browser sees
// the narration arrive in parts.
function pieces(text, words = 2) {
  const parts = text.split(/(?<=\s)/);
  const out = [];
  for (let i = 0; i < parts.length; i += words) out.push(parts.slice(i, i + words).join(''));
  return out;
}

// startFakeModel listens on 127.0.0.1 and resolves with:
//   url       the base URL to give the server (ends in /v1)
//   push(r)   queue a reply { text, state?, reasoning?: string[], hold?: boolean,
//             finishReason?: 'stop'|'length', delayMs?, status?,
//             toolCalls?: [{ name, arguments (an object or its JSON), id? }] }; returns { release } which,
//             for hold: true, lets the reply go on after its first content chunk;
//             a request without stream: true (the settings' connection test)
//             gets its reply as one plain completion;
//             status answers with that HTTP error status instead of a reply;
//             toolCalls (native tool calling) stream after the text as
//             delta.tool_calls pieces, the arguments in parts, and end with
//             finish_reason 'tool_calls'
//   requests  every chat request body received, parsed, in order (the memory
//             bank's calls aside)
//   tools     the tool names each of those requests offered (body.tools), in order
//             when?: (body) => boolean: the reply is for the first request it accepts
//             (a DM's and a companion's steps may ask at once), the others skip it;
//             reply?: (body) => reply | Promise<reply>: the reply made when the
//             request comes (from the context and tool results it carries; a
//             promise holds the whole answer until it settles)
//   memoryRequests  the memory bank's call bodies, answered with FAKE_MEMORY
//             or FAKE_SUMMARY
//   unexpected  how many requests found the queue empty
//   streamed, dropped  how many answers (the memory bank's aside) were written
//             to their end, and how many the client left before that
//   close()   stop the server
export async function startFakeModel() {
  const queue = [];
  const requests = [];
  const memoryRequests = [];
  let unexpected = 0;
  let streamed = 0;
  let dropped = 0;

  const server = http.createServer((req, res) => {
    if (req.method === 'GET' && req.url === '/v1/models') {
      res.writeHead(200, { 'Content-Type': 'application/json' });
      res.end(JSON.stringify({ object: 'list', data: [{ id: 'fake', object: 'model', created: CREATED, owned_by: 'e2e' }] }));
      return;
    }
    if (req.method !== 'POST' || req.url !== '/v1/chat/completions') {
      res.writeHead(404, { 'Content-Type': 'application/json' });
      res.end(JSON.stringify({ error: { message: `fake model: no route ${req.method} ${req.url}`, type: 'not_found' } }));
      return;
    }
    let raw = '';
    req.setEncoding('utf8');
    req.on('data', (c) => {
      raw += c;
    });
    req.on('end', () => {
      let body;
      try {
        body = JSON.parse(raw);
      } catch {
        res.writeHead(400, { 'Content-Type': 'application/json' });
        res.end(JSON.stringify({ error: { message: 'fake model: bad JSON', type: 'invalid_request_error' } }));
        return;
      }
      const memory = memoryCall(body);
      if (memory) {
        memoryRequests.push(body);
        stream(req, res, body, { text: memory === 'memory' ? FAKE_MEMORY : FAKE_SUMMARY, delayMs: 5 }).catch(() =>
          res.destroy(),
        );
        return;
      }
      requests.push(body);
      res.on('close', () => (res.writableFinished ? streamed++ : dropped++));
      // the first queued reply meant for this request (see push's `when`)
      const at = queue.findIndex((r) => !r.when || r.when(body));
      const reply = at < 0 ? null : queue.splice(at, 1)[0];
      if (!reply) {
        unexpected++;
        res.writeHead(500, { 'Content-Type': 'application/json' });
        res.end(JSON.stringify({ error: { message: 'fake model: no reply queued', type: 'server_error' } }));
        return;
      }
      if (reply.reply) {
        // made when the request comes, from what it asks
        Promise.resolve(reply.reply(body)).then(
          (made) => answer(req, res, body, { ...made, gate: reply.gate }),
          () => res.destroy(),
        );
        return;
      }
      answer(req, res, body, reply);
    });
  });

  function answer(req, res, body, reply) {
    if (reply.status) {
      res.writeHead(reply.status, { 'Content-Type': 'application/json' });
      res.end(JSON.stringify({ error: { message: 'fake model: scripted failure', type: 'server_error' } }));
      return;
    }
    if (body.stream !== true) {
      // a plain completion: the settings' connection test
      res.writeHead(200, { 'Content-Type': 'application/json' });
      res.end(
        JSON.stringify({
          id: 'chatcmpl-fake',
          object: 'chat.completion',
          created: CREATED,
          model: body.model || 'fake',
          choices: [
            {
              index: 0,
              message: {
                role: 'assistant',
                content: reply.text ?? '',
                ...(reply.toolCalls?.length ? { tool_calls: toolCallsOf(reply) } : {}),
              },
              finish_reason: reply.toolCalls?.length ? 'tool_calls' : 'stop',
            },
          ],
        }),
      );
      return;
    }
    stream(req, res, body, reply).catch(() => res.destroy());
  }

  async function stream(req, res, body, reply) {
    let gone = false;
    res.on('close', () => {
      gone = true;
    });
    res.writeHead(200, { 'Content-Type': 'text/event-stream', 'Cache-Control': 'no-cache', Connection: 'keep-alive' });
    const model = body.model || 'fake';
    const includeUsage = body.stream_options?.include_usage === true;
    const send = (obj) => {
      if (!gone) res.write(`data: ${typeof obj === 'string' ? obj : JSON.stringify(obj)}\n\n`);
    };
    const chunk = (delta, finish = null) => ({
      id: 'chatcmpl-fake',
      object: 'chat.completion.chunk',
      created: CREATED,
      model,
      choices: [{ index: 0, delta, finish_reason: finish }],
    });
    const pause = () => new Promise((r) => setTimeout(r, reply.delayMs ?? 40));

    let content = reply.text ?? '';
    if (reply.state) content += `\n\n\`\`\`state\n${JSON.stringify(reply.state)}\n\`\`\``;

    send(chunk({ role: 'assistant', content: '' }));
    for (const r of reply.reasoning ?? []) {
      await pause();
      send(chunk({ reasoning_content: r }));
    }
    let first = true;
    for (const piece of content === '' ? [] : pieces(content)) {
      if (gone) return;
      await pause();
      send(chunk({ content: piece }));
      if (first && reply.gate) await reply.gate;
      first = false;
    }
    // native tool calls: each call's id and name first, then its
    // arguments in two pieces, as OpenAI-compatible servers stream them
    const calls = toolCallsOf(reply);
    for (const [index, c] of calls.entries()) {
      if (gone) return;
      await pause();
      send(chunk({ tool_calls: [{ index, id: c.id, type: 'function', function: { name: c.function.name, arguments: '' } }] }));
      const args = c.function.arguments;
      const half = Math.ceil(args.length / 2);
      for (const part of [args.slice(0, half), args.slice(half)]) {
        if (part === '') continue;
        await pause();
        send(chunk({ tool_calls: [{ index, function: { arguments: part } }] }));
      }
    }
    await pause();
    send(chunk({}, calls.length > 0 ? 'tool_calls' : (reply.finishReason ?? 'stop')));
    if (includeUsage) {
      send({
        id: 'chatcmpl-fake',
        object: 'chat.completion.chunk',
        created: CREATED,
        model,
        choices: [],
        usage: {
          prompt_tokens: 100 + requests.length,
          completion_tokens: content.length,
          total_tokens: 100 + requests.length + content.length,
          prompt_tokens_details: { cached_tokens: 0 },
        },
      });
    }
    send('[DONE]');
    res.end();
  }

  // toolCallsOf: a reply's tool calls as the API names them (ids made up when absent).
  function toolCallsOf(reply) {
    return (reply.toolCalls ?? []).map((c, i) => ({
      id: c.id ?? `call_${requests.length}_${i}`,
      type: 'function',
      function: { name: c.name, arguments: typeof c.arguments === 'string' ? c.arguments : JSON.stringify(c.arguments ?? {}) },
    }));
  }

  await new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', resolve);
  });
  const { port } = server.address();

  return {
    url: `http://127.0.0.1:${port}/v1`,
    requests,
    get tools() {
      return requests.map((b) => (Array.isArray(b.tools) ? b.tools.map((x) => x.function?.name ?? x.name) : []));
    },
    memoryRequests,
    get unexpected() {
      return unexpected;
    },
    get queued() {
      return queue.length;
    },
    get streamed() {
      return streamed;
    },
    get dropped() {
      return dropped;
    },
    push(reply) {
      let release = () => {};
      const entry = { ...reply };
      if (reply.hold) entry.gate = new Promise((r) => (release = r));
      queue.push(entry);
      return { release: () => release() };
    },
    close() {
      return new Promise((resolve) => {
        server.closeAllConnections?.();
        server.close(() => resolve());
      });
    },
  };
}
