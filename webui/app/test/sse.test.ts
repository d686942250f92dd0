import { describe, expect, it } from 'vitest';
import { en } from '../src/i18n/en';
import type { MessageKey } from '../src/i18n/messages';
import { chipText, shortNames, signed } from '../src/solo/outcomes';
import { createSseParser, liveText, parseStreamEvent } from '../src/solo/sse';
import { rulesDraftOf, rulesInputOf, scenarioInputOf, splitKeys, type ScenarioDraft } from '../src/solo/scenarioDraft';

const collect = () => {
  const got: string[] = [];
  const parser = createSseParser((d) => got.push(d));
  return { got, parser };
};

describe('SSE parser', () => {
  it('joins an event split across chunk boundaries', () => {
    const { got, parser } = collect();
    parser.push('da');
    parser.push('ta: {"type":"chu');
    expect(got).toEqual([]);
    parser.push('nk","text":"Hel');
    parser.push('lo"}\n');
    expect(got).toEqual([]);
    parser.push('\n');
    expect(got).toEqual(['{"type":"chunk","text":"Hello"}']);
  });

  it('delivers several events that arrive in one chunk, and keeps the unfinished rest', () => {
    const { got, parser } = collect();
    parser.push('data: {"n":1}\n\ndata: {"n":2}\n\ndata: {"n":');
    expect(got).toEqual(['{"n":1}', '{"n":2}']);
    parser.push('3}\n\n');
    expect(got).toEqual(['{"n":1}', '{"n":2}', '{"n":3}']);
  });

  it('ignores comments, other fields and events without data', () => {
    const { got, parser } = collect();
    parser.push(': keep-alive\n\n');
    parser.push('event: message\nid: 4\nretry: 100\ndata: {"n":1}\n\n');
    parser.push(':ping\n\nid: 5\n\n');
    expect(got).toEqual(['{"n":1}']);
  });

  it('handles CRLF line ends, also when a CRLF is split between chunks', () => {
    const { got, parser } = collect();
    parser.push('data: {"n":1}\r\n\r');
    parser.push('\ndata: {"n":2}\r');
    parser.push('\n\r\n');
    expect(got).toEqual(['{"n":1}', '{"n":2}']);
  });

  it('joins multi-line data and strips one space after the colon', () => {
    const { got, parser } = collect();
    parser.push('data:a\ndata:  b\n\n');
    expect(got).toEqual(['a\n b']);
  });

  it('delivers a last event that ends without a blank line when the stream ends', () => {
    const { got, parser } = collect();
    parser.push('data: {"n":1}\n\ndata: {"n":2}');
    expect(got).toEqual(['{"n":1}']);
    parser.end();
    expect(got).toEqual(['{"n":1}', '{"n":2}']);
  });

  it('decodes known events and skips bad JSON and unknown types', () => {
    expect(parseStreamEvent('{"type":"chunk","text":"hi"}')).toEqual({ type: 'chunk', text: 'hi' });
    expect(parseStreamEvent('{"type":"error","code":"provider_unavailable","message":"x"}')).toEqual({
      type: 'error',
      code: 'provider_unavailable',
      message: 'x',
    });
    expect(parseStreamEvent('{"type":"stopped","reason":"length","message":"m"}')).toEqual({
      type: 'stopped',
      reason: 'length',
      message: 'm',
    });
    expect(parseStreamEvent('{"type":"stopped","reason":"player","message":"m"}')).toMatchObject({ reason: 'player' });
    expect(parseStreamEvent('{"type":"stopped","reason":"other","message":"m"}')).toMatchObject({ reason: 'dropped' });
    // a stop before any text: done without an action
    expect(parseStreamEvent('{"type":"done","adventure":{"id":7}}')).toEqual({ type: 'done', action: null, adventure: { id: 7 } });
    expect(parseStreamEvent('not json')).toBeNull();
    expect(parseStreamEvent('{"type":"future_thing"}')).toBeNull();
    expect(parseStreamEvent('{"type":"done"}')).toBeNull();
  });

  it('keeps the notices of done and error events, and leaves them out when there are none', () => {
    const error = { code: 'script.error', params: { hook: 'output', kind: 'throw', error: 'boom' }, text: 'Script error in the output hook (throw): boom' };
    const done = parseStreamEvent(
      JSON.stringify({
        type: 'done',
        action: { id: 3 },
        adventure: { id: 7 },
        notices: [{ code: 'script.message', params: { text: 'You feel watched.' }, text: 'You feel watched.' }, error, 7, '', null, {}],
      }),
    );
    expect(done).toMatchObject({
      type: 'done',
      notices: [{ code: 'script.message', params: { text: 'You feel watched.' }, text: 'You feel watched.' }, error],
    });
    // a bare string is a script's own words
    const stopped = parseStreamEvent(
      '{"type":"error","code":"script_stopped","message":"The input script stopped the action.","notices":["No."]}',
    );
    expect(stopped).toEqual({
      type: 'error',
      code: 'script_stopped',
      message: 'The input script stopped the action.',
      notices: [{ code: 'script.message', params: { text: 'No.' }, text: 'No.' }],
    });
    const plain = parseStreamEvent('{"type":"done","action":{"id":3},"adventure":{"id":7},"notices":"nope"}');
    expect(plain).not.toHaveProperty('notices');
  });
});

describe('liveText', () => {
  it('cuts a trailing state block, complete or still arriving', () => {
    expect(liveText('The door opens.\n```state\n{"player.hp": -15}\n```')).toBe('The door opens.');
    expect(liveText('The door opens.\n```state\n{"player.')).toBe('The door opens.');
    expect(liveText('The door opens.\n```sta')).toBe('The door opens.');
    expect(liveText('The door opens.\n``')).toBe('The door opens.');
    expect(liveText('The door opens.')).toBe('The door opens.');
  });
});

describe('stat chips', () => {
  const t = (k: MessageKey) => en[k];
  it('name stats by their shortest unambiguous suffix', () => {
    const n = shortNames(['player.hp', 'npc.gwen.trust', 'npc.bob.trust', 'gold']);
    expect(Object.fromEntries(n)).toEqual({
      'player.hp': 'hp',
      'npc.gwen.trust': 'gwen.trust',
      'npc.bob.trust': 'bob.trust',
      gold: 'gold',
    });
  });

  it('write applied, clamped and rejected changes', () => {
    expect(chipText(t, { path: 'player.hp', status: 'applied', from: 100, to: 85 }, 'hp')).toBe('hp −15');
    expect(chipText(t, { path: 'npc.gwen.trust', status: 'clamped', from: 95, to: 100, reason: 'clamped_to_max' }, 'trust')).toBe(
      'trust +5 (clamped)',
    );
    expect(chipText(t, { path: 'player.gold', status: 'rejected', from: 5, reason: 'cooldown' }, 'gold')).toBe(
      'gold rejected: cooldown',
    );
    expect(chipText(t, { path: 'door', status: 'applied', from: false, to: true }, 'door')).toBe('door → yes');
    expect(signed(0)).toBe('±0');
    expect(signed(2.5)).toBe('+2.5');
  });
});

describe('scenario input', () => {
  it('splits keys on ASCII, full-width and ideographic commas', () => {
    expect(splitKeys(' Gwen, the smith，forge、 ,')).toEqual(['Gwen', 'the smith', 'forge']);
  });

  it('keeps a /regular expression/ key whole with commas inside', () => {
    expect(splitKeys('dragon, /\\bwyrms?{1,2}\\b/i, /a,b/, /open')).toEqual(['dragon', '/\\bwyrms?{1,2}\\b/i', '/a,b/', '/open']);
  });

  it('sends a card with its rules, and keeps them through a reload of the draft', () => {
    const rules = rulesDraftOf({ secondary_keys: ['peace'], logic: 'not_any', constant: true, priority: -4 });
    expect(rules).toEqual({ secondary: 'peace', logic: 'not_any', constant: true, priority: '-4' });
    expect(rulesInputOf(rules)).toEqual({ secondary_keys: ['peace'], logic: 'not_any', constant: true, priority: -4 });
    expect(rulesInputOf(rulesDraftOf({}))).toEqual({});
    // An edit in play says every rule, so it can clear one.
    expect(rulesInputOf(rulesDraftOf({}), true)).toEqual({ secondary_keys: [], logic: 'and_any', constant: false, priority: 0 });
    expect(rulesDraftOf({ logic: 'sometimes' }).logic).toBe('and_any');
  });

  it('drops rows without a path and leaves optional fields out', () => {
    const d: ScenarioDraft = {
      title: ' T ',
      premise: 'p',
      plot_essentials: '',
      ai_instructions: '',
      authors_note: '',
      opening: '',
      stats: [
        { key: 1, path: ' ', min: '0', max: '1', initial: '0', cooldown: '', bands: [] },
        { key: 2, path: 'gold', min: '0', max: '999', initial: '10', cooldown: '0', bands: [] },
      ],
      cards: [{ key: 3, title: '', keys: '', type: 'lore', entry: '', rules: rulesDraftOf({}) }],
      scripts: { library: '', input: '  const modifier = (text) => ({ text })\nmodifier(text)\n', context: '', output: '' },
    };
    expect(scenarioInputOf(d)).toEqual({
      title: 'T',
      premise: 'p',
      plot_essentials: '',
      ai_instructions: '',
      authors_note: '',
      opening: '',
      stat_schema: { gold: { min: 0, max: 999, initial: 10 } },
      cards: [],
      // scripts go always, all four, exactly as typed
      scripts: { library: '', input: '  const modifier = (text) => ({ text })\nmodifier(text)\n', context: '', output: '' },
    });
  });
});
