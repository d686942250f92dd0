// A whole scene with Adventure Table's narrator at the DM seat, end to end:
// the owner Olga (desktop) gives it the DM seat and directs it; two players
// in real browsers, Ana (desktop, 1366×768) and Bob (phone, 390×844), then
// the scene again with their screens swapped; the
// fake model answers with native tool calls, some made from the context
// the step reads (the declared actions' ids). narrator.test.mjs covers the
// seat's choice, Act now, pause, stuck and retry; this one plays the scene:
//   - exploration: the narrator opens "What do you do?"; Ana's declaration
//     wakes nothing, Bob's closes the window at once (long before its two
//     minutes) and one step adjudicates both and asks everyone for a
//     Perception check with a secret DC;
//   - the check: both players' cards show the commitment, and once both
//     rolled, DC 14 with their own browser's "matches the commitment";
//   - an AI companion: on the room page Olga seats the narrator in the free
//     seat with her character Kit;
//   - combat: the narrator starts a fight with a wolf and plays it on its
//     turn (fight attack, end_turn); Kit acts on its own turn; Ana's and
//     Bob's turns wait for them;
//   - take-back mid-step: on the wolf's next turn the model holds its reply;
//     Olga takes the DM seat back; the reply's tool calls are refused
//     (the grant is revoked, taken_back) and nothing of the step is in the
//     table: no attack, no narration, the wolf's turn still open; Olga has
//     the DM composer.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { startFakeModel } from './fake-model.mjs';
import { chromiumOrSkip, eventually, skipLine } from './harness.mjs';
import { button, character, chatLine, DESKTOP, PHONE, showPart, sizeName, tableJourney, waitText } from './table-setup.mjs';

const haveChromium = chromiumOrSkip();

const PROMPT = 'Dust hangs in the old library. What do you do?';
const OPENING = 'The library doors groan shut behind you. Dust hangs in the lamplight.';
const ADJUDICATED = 'Aria runs a hand along the shelves while Brom watches the door. Everyone, roll Perception.';
const WOLF_APPEARS = 'A grey wolf slinks out from behind the shelves!';
const WOLF_TURN = 'The wolf snaps at Aria.';
const KIT_TURN = 'Kit darts in with her shortsword.';
const HELD = 'The wolf circles and';

// isDM / isCompanion: which seat's step a model request comes from (its system prompt).
const isDM = (body) => /^You are the Dungeon Master/.test(body.messages[0].content);
const isCompanion = (body) => /^You play one player character/.test(body.messages[0].content);
// tableOf: the get_session_context the step read, parsed.
const tableOf = (body) => {
  const m = /get_session_context\):\n([\s\S]*?)\n\nAct now/.exec(body.messages[1].content);
  return JSON.parse(m[1]);
};

// Played twice: Ana at a desk and Bob on his phone, then the other way round.
for (const [anaSize, bobSize] of [
  [DESKTOP, PHONE],
  [PHONE, DESKTOP],
]) {
  describe(`Adventure Table narrator scene, Ana at ${sizeName(anaSize)}, Bob at ${sizeName(bobSize)}`, { skip: !haveChromium && skipLine() }, () => {
    const { at, person, api, setUpTable, pageErrors } = tableJourney({ viewport: DESKTOP });
    let model;

    before(async () => {
      model = await startFakeModel();
    });
    after(async () => {
      await model?.close();
    });

    test('exploration window, a secret check verified on both screens, the narrator plays the wolf, a companion fights, the owner takes the seat back mid-step', async (t) => {
      const olga = await person('Olga');
      const touch = (size) => (size === PHONE ? { viewport: size, hasTouch: true, isMobile: true } : { viewport: size });
      const ana = await person('Ana', touch(anaSize));
      const bob = await person('Bob', touch(bobSize));
      const players = [ana, bob];
      const chat = (page) => showPart(page, 'Chat');
      const tablePart = (page) => showPart(page, 'At the table');

      // --- the table through the API: Ana plays Aria, Bob Brom; Seat C stays free for a companion
      const { room, campaignId, seats, sessionId } = await setUpTable({
        dm: { page: olga, name: 'Olga' },
        players: [
          { page: ana, name: 'Ana', seat: 'Seat A', character: character('Aria') },
          { page: bob, name: 'Bob', seat: 'Seat B', character: character('Brom') },
        ],
        room: 'Scene room',
        campaign: 'The Old Library',
        start: false,
      });
      const withC = await api(olga, 'POST', `/api/campaigns/${campaignId}/seats`, { label: 'Seat C' });
      seats['Seat C'] = withC.campaigns[0].seats.find((s) => s.label === 'Seat C').id;
      await api(
        olga,
        'POST',
        '/api/characters',
        character('Kit', {
          attacks: [{ name: 'Shortsword', ability: 'dex', proficient: true, bonus: 0, damage: '1d6', damage_type: 'piercing', add_modifier: true }],
        }),
      );
      await api(olga, 'PUT', '/api/solo/settings', {
        base_url: model.url,
        model: 'fake',
        context_budget: 8000,
        max_output_tokens: 600,
        temperature: 0.8,
        top_p: 0.95,
      });
      // A long quiet time: only what asks the DM at once wakes it (the window
      // complete, an @DM line, a monster's turn, Act now), so every step of
      // the scene is one the script expects.
      await api(olga, 'POST', `/api/seats/${seats.DM}/narrator`, { debounce_ms: 60000 });
      const narrators = () => api(olga, 'GET', `/api/rooms/${room.id}/narrators`);
      const dmNarrator = async () => (await narrators()).find((n) => n.seat_id === seats.DM);
      const events = async () => (await api(olga, 'GET', `/api/sessions/${sessionId}/events?after=0&limit=200`)).events;
      const stepTokens = [];
      // stepDone waits until the DM narrator has recorded steps and notes the last step's tokens.
      const stepDone = async (steps, what) => {
        for (;;) {
          const n = await dmNarrator();
          if (n.steps >= steps && n.state === 'idle') {
            assert.equal(n.steps, steps, `${what}: one step`);
            assert.equal(n.last_error, '', `${what}: no flag`);
            stepTokens.push({ step: what, tokens: n.last_step_tokens });
            return;
          }
          await new Promise((r) => setTimeout(r, 100));
        }
      };

      for (const page of [olga, ...players]) await at(page, `sessions/${sessionId}`);
      const dmStatus = olga.getByTestId('narrator-status').filter({ has: button(olga, 'Take back the DM seat') });

      // --- Act now: the narrator starts the session, opens "What do you do?" and sets the scene
      model.push({ when: isDM, toolCalls: [{ name: 'session', arguments: { action: 'start' } }] });
      model.push({ when: isDM, toolCalls: [{ name: 'action_window', arguments: { prompt: PROMPT } }] });
      model.push({ when: isDM, text: OPENING });
      await button(dmStatus, 'Act now').click();
      for (const page of players) {
        await chat(page);
        await chatLine(page, OPENING).waitFor();
        await page.getByTestId('window-prompt').filter({ hasText: PROMPT }).waitFor();
      }
      await stepDone(1, 'the opening');
      await dmStatus.getByTestId('narrator-state').filter({ hasText: 'waiting for Aria, Brom' }).waitFor();
      const opened = await dmNarrator();
      assert.deepEqual([...opened.waiting_for].sort(), [seats['Seat A'], seats['Seat B']].sort());
      const deadline = Date.parse(opened.window_deadline);

      // --- Ana declares: the narrator waits for Bob
      const declare = async (page, text) => {
        await chat(page);
        await page.getByLabel('Message', { exact: true }).fill(text);
        await button(page, 'Declare action').click();
        await page.waitForFunction(() => document.querySelector('textarea.message-input')?.value === '');
      };
      const asked = model.requests.length;
      await declare(ana, 'I search the bookshelves');
      await dmStatus.getByTestId('narrator-state').filter({ hasText: 'waiting for Brom' }).waitFor();
      assert.equal(model.requests.length, asked, 'one declaration of two woke the narrator');

      // --- Bob declares: everyone has; one step adjudicates both, asks for Perception (secret DC 14) and closes the window
      let seen;
      model.push({
        when: isDM,
        reply: (body) => {
          seen = tableOf(body);
          const ids = seen.actions.map((a) => a.action_id);
          return {
            toolCalls: [
              ...ids.map((id) => ({ name: 'adjudicate_action', arguments: { action_id: id, status: 'processing' } })),
              { name: 'request_check', arguments: { skill: 'perception', dc: 14, label: 'The shelves' } },
              { name: 'action_window', arguments: { window_id: seen.window.window_id } },
            ],
          };
        },
      });
      model.push({ when: isDM, text: ADJUDICATED });
      await declare(bob, 'I watch the door');
      for (const page of players) {
        await chat(page);
        await chatLine(page, ADJUDICATED).waitFor();
        await page.getByTestId('window-prompt').waitFor({ state: 'detached' });
      }
      await stepDone(2, 'the adjudication');
      assert.equal(model.requests.length, asked + 2, 'one step: its tool calls, then its narration');
      assert.deepEqual(seen.actions.map((a) => a.text).sort(), ['I search the bookshelves', 'I watch the door']);
      const closed = (await events()).find((e) => e.kind === 'window.closed');
      assert.ok(closed, 'the narrator closed the window');
      assert.ok(Date.parse(closed.created_at) < deadline - 60_000, 'the window closed early, not at its deadline');
      // the runner clears the deadline when it reads the window.closed event, after the step
      await eventually(async () => assert.equal((await dmNarrator()).window_deadline ?? null, null));

      // --- the check: both cards show the DC's commitment, never the DC; both roll; both browsers verify DC 14
      const checkCard = (page, who) => page.getByTestId('feed-check').filter({ hasText: who }).filter({ hasText: 'Perception' });
      for (const [page, who] of [
        [ana, 'Aria'],
        [bob, 'Brom'],
      ]) {
        await chat(page);
        await checkCard(page, who).getByTestId('dc-commitment').filter({ hasText: 'DC committed' }).waitFor();
        assert.doesNotMatch(await checkCard(page, who).innerText(), /\b14\b/, `${who}'s card shows no DC`);
      }
      for (const [page, who] of [
        [ana, 'Aria'],
        [bob, 'Brom'],
      ]) {
        await button(checkCard(page, who), 'Roll').click();
        await checkCard(page, who).getByTestId('feed-check-total').waitFor();
      }
      for (const [page, who] of [
        [ana, 'Aria'],
        [bob, 'Brom'],
      ]) {
        const verify = checkCard(page, who).getByTestId('dc-verify');
        await verify.and(page.locator('[data-verdict="match"]')).waitFor();
        await verify.filter({ hasText: 'DC 14' }).filter({ hasText: '✓ matches the commitment' }).waitFor();
      }

      // --- a companion: on the room page Olga seats the narrator in the free Seat C, playing her Kit
      await at(olga, `rooms/${room.id}`);
      const seatC = olga.locator(`[data-testid="seat"][data-seat-id="${seats['Seat C']}"]`);
      await button(seatC, 'Add an AI companion').click();
      await seatC.getByTestId('narrator-companion-character').selectOption({ label: 'Kit' });
      await seatC.getByLabel('Quiet time (seconds)').fill('60');
      await button(seatC, 'Seat the companion').click();
      await seatC.getByTestId('seat-controller').filter({ hasText: 'Adventure Table’s narrator' }).waitFor();
      const companion = (await narrators()).find((n) => n.seat_id === seats['Seat C']);
      assert.equal(companion.origin, 'companion');
      assert.equal(companion.debounce_ms, 60000);
      await at(olga, `sessions/${sessionId}`);
      await olga.getByTestId('narrator-status').getByRole('heading', { name: 'Narrator playing Kit' }).waitFor();

      // --- combat: Ana calls the DM; the narrator starts a fight with a wolf, rolls
      // initiative for everyone (wolf 20+2, Kit 15+2, Aria 10+2, Brom 6+2) and begins it
      const wolf = 'npc:1';
      const seat = (label) => `seat:${seats[label]}`;
      model.push({
        when: isDM,
        toolCalls: [
          { name: 'fight', arguments: { action: 'start', name: 'Library', npcs: [{ name: 'Wolf', ac: 12, hp: 40, initiative_bonus: 2 }] } },
          { name: 'fight', arguments: { action: 'initiative', combatant_id: wolf, faces: [20] } },
          { name: 'fight', arguments: { action: 'initiative', combatant_id: seat('Seat C'), faces: [15] } },
          { name: 'fight', arguments: { action: 'initiative', combatant_id: seat('Seat A'), faces: [10] } },
          { name: 'fight', arguments: { action: 'initiative', combatant_id: seat('Seat B'), faces: [6] } },
          { name: 'fight', arguments: { action: 'end_turn' } },
        ],
      });
      model.push({ when: isDM, text: WOLF_APPEARS });
      // the wolf's turn is the narrator's: it attacks Aria and ends its turn
      model.push({
        when: isDM,
        toolCalls: [
          { name: 'fight', arguments: { action: 'attack', combatant_id: wolf, target_id: seat('Seat A'), weapon: 'Bite', bonus: 4, damage: '2d4+2', faces: [17], damage_faces: [2, 3] } },
          { name: 'fight', arguments: { action: 'end_turn' } },
        ],
      });
      model.push({ when: isDM, text: WOLF_TURN });
      // Kit's turn is the companion's: it attacks the wolf and ends its turn
      model.push({
        when: isCompanion,
        toolCalls: [
          { name: 'fight', arguments: { action: 'attack', combatant_id: seat('Seat C'), target_id: wolf, weapon: 'Shortsword', faces: [16], damage_faces: [4] } },
          { name: 'fight', arguments: { action: 'end_turn' } },
        ],
      });
      model.push({ when: isCompanion, text: KIT_TURN });
      await chat(ana);
      const composer = ana.getByLabel('Message', { exact: true });
      await composer.fill('@DM something moves behind the shelves');
      await composer.press('Enter');
      for (const page of players) {
        await chat(page);
        for (const line of [WOLF_APPEARS, WOLF_TURN, KIT_TURN]) await chatLine(page, line).waitFor();
      }
      // Aria's turn: it waits for Ana
      await waitText(ana.getByTestId('turn-notice'), 'Your turn! (round 1)');
      await stepDone(4, 'the wolf’s turn');
      assert.equal(model.queued, 0, 'every scripted reply was asked for');
      const attacks = (await events()).filter((e) => e.kind === 'encounter.attack');
      assert.deepEqual(
        attacks.map((e) => e.acting_seat_id),
        [seats.DM, seats['Seat C']],
        'the narrator attacked on the wolf’s turn, the companion on Kit’s',
      );
      const turnWaits = model.requests.length;
      const endTurn = async (page) => {
        await tablePart(page);
        await button(page.getByTestId('encounter-prompt'), 'End my turn').click();
      };
      await endTurn(ana);
      await waitText(bob.getByTestId('turn-notice'), 'Your turn! (round 1)');
      assert.equal(model.requests.length, turnWaits, 'a player’s turn woke no narrator');

      // --- the wolf's next turn: the model holds its reply; Olga takes the DM seat back meanwhile
      const held = model.push({
        when: isDM,
        text: HELD,
        hold: true,
        toolCalls: [
          { name: 'fight', arguments: { action: 'attack', combatant_id: wolf, target_id: seat('Seat B'), bonus: 4, damage: '2d4+2', faces: [18] } },
          { name: 'fight', arguments: { action: 'end_turn' } },
        ],
      });
      await endTurn(bob);
      // at work on it: thinking, or writing once its first words stream
      await dmStatus.getByTestId('narrator-state').and(olga.locator('[data-state="thinking"], [data-state="writing"]')).waitFor();
      for (;;) {
        if (model.queued === 0) break; // the held reply is being answered
        await new Promise((r) => setTimeout(r, 50));
      }
      const costLine = dmStatus.getByTestId('narrator-tokens').filter({ hasText: /^Steps this session: 4 · tokens [\d,]+ prompt \+ [\d,]+ completion · last step [\d,]+$/ });
      await costLine.waitFor();
      const costs = await costLine.innerText();
      // (by seq: Olga, the DM again, then reads the DM's events too)
      const beforeTakeBack = Math.max(...(await events()).map((e) => e.seq));
      await button(dmStatus, 'Take back the DM seat').click();
      await waitText(olga.getByTestId('my-role'), 'DM');
      await olga.getByPlaceholder('Narrate, or / for commands').waitFor();
      const answers = model.streamed + model.dropped;
      held.release();
      // the held answer ends: written to its end (the runner then calls its
      // tools), or left by the runner once its heartbeat found the claim gone
      for (;;) {
        if (model.streamed + model.dropped > answers) break;
        await new Promise((r) => setTimeout(r, 50));
      }
      t.diagnostic(model.dropped > 0 ? 'the step ended before its tool calls (its claim was gone)' : 'the step’s tool calls met the taken-back grant');
      // The runner now gets the tool calls; the revoked grant refuses them
      // (ai_token_revoked, taken_back) and the step ends. The table must not
      // change: watched over twelve of the runner's 250 ms rounds.
      const until = Date.now() + 3000;
      while (Date.now() < until) {
        const now = await events();
        const added = now.filter((e) => e.seq > beforeTakeBack).map((e) => e.kind);
        assert.ok(
          added.every((k) => k !== 'encounter.attack' && k !== 'encounter.turn' && k !== 'message.posted'),
          `the taken-back step applied something: ${added.join(', ')}`,
        );
        await new Promise((r) => setTimeout(r, 250));
      }
      for (const page of [olga, ...players]) {
        await chat(page);
        assert.equal(await chatLine(page, `${HELD}`).count(), 0, 'the held narration never reached the feed');
      }
      const fight = await api(olga, 'GET', `/api/sessions/${sessionId}/encounter`);
      assert.equal(fight.encounter.current_id, wolf, 'the wolf’s turn is still open for the human DM');
      const left = await narrators();
      assert.deepEqual(
        left.map((n) => n.seat_id),
        [seats['Seat C']],
        'the DM seat’s narrator is gone; the companion stays',
      );
      assert.equal(model.requests.length, turnWaits + 1, 'the taken-back step asked the model nothing more');
      assert.equal(model.unexpected, 0);
      for (const s of stepTokens) t.diagnostic(`the narrator's step ${s.step}: ${s.tokens} tokens`);
      t.diagnostic(`the owner's view before the take-back: ${costs}`);
      assert.deepEqual(pageErrors, []);
    });
  });
}
