import { describe, expect, it } from 'vitest';
import { en } from '../src/i18n/en';
import errorsEn from '../src/i18n/errors.en.json';
import errorsZhTW from '../src/i18n/errors.zh-TW.json';
import { errorText, LANGUAGES, translate } from '../src/i18n/messages';
import { SCRIPT_ERROR_KINDS, SERVER_TEXT_KEYS } from '../src/i18n/serverText';
import { zhTW } from '../src/i18n/zh-TW';

// The server's error codes (a Go test compares the JSON files with its list too).
const SERVER_ERROR_CODES = [
  'invalid_request',
  'journal_audience_not_allowed',
  'journal_dm_required',
  'journal_entry_invalid',
  'journal_entry_not_editable',
  'journal_full',
  'journal_wider_than_source',
  'recap_not_open',
  'not_found',
  'route_not_found',
  'method_not_allowed',
  'unauthorized',
  'forbidden',
  'origin_forbidden',
  'conflict',
  'database_unavailable',
  'internal',
  // table ground (rooms, campaigns, seats, characters, sessions)
  'room_access_revoked',
  'room_authority_required',
  'room_owner_required',
  'invite_code_invalid',
  'owner_cannot_be_revoked',
  'display_name_invalid',
  'room_name_invalid',
  'campaign_name_invalid',
  'campaign_world_invalid',
  'seat_label_invalid',
  'self_claim_disabled',
  'seat_not_claimable',
  'seat_already_controlled',
  'seat_controller_required',
  'character_invalid',
  'character_already_in_session',
  'import_format_unsupported',
  'import_png_without_card',
  'campaign_not_active',
  'campaign_not_room_active',
  'session_already_open',
  'session_not_lobby',
  'session_not_active',
  'session_ended',
  'not_current_dm',
  'seat_not_ready',
  'participant_already_joined',
  // the server's narrator: what a step flags on its seat
  'narrator_unbacked_outcome',
  'narrator_secret_in_public',
  'narrator_tool_limit',
  // the live table (events, chat, stage)
  'message_text_invalid',
  'message_kind_not_allowed',
  'not_a_participant',
  'whisper_target_required',
  'proxy_target_invalid',
  'stage_revision_conflict',
  'table_full',
  'table_not_ready',
  'stage_image_invalid',
  'stage_image_too_large',
  'unknown_command',
  // rolls, checks, pending actions, character state
  'dice_invalid_expression',
  'dice_expression_too_long',
  'dice_too_many_dice_in_term',
  'dice_too_many_dice',
  'dice_too_many_sides',
  'dice_explosion_too_deep',
  'dice_division_by_zero',
  'dice_face_invalid',
  'dice_faces_missing',
  'roll_faces_mismatch',
  'check_invalid',
  'not_roll_target',
  'roll_request_already_resolved',
  'roll_request_not_pending',
  'pending_action_invalid_transition',
  'action_window_closed',
  'character_state_invalid',
  'character_state_forbidden',
  'character_in_session',
  'character_not_at_table',
  // AI controller grants
  'ai_token_invalid',
  'ai_token_revoked',
  'ai_token_expired',
  'ai_grant_not_current_controller',
  'ai_grant_wrong_session',
  'ai_grant_pre_session_only',
  'ai_grant_already_bound',
  'take_back_origin_required',
  'seat_not_ai_controlled',
  'scenario_invalid',
  'provider_settings_invalid',
  'memory_invalid',
  'bundle_invalid',
  'card_invalid',
  'card_limit_reached',
  'card_logic_invalid',
  'card_key_invalid',
  'message_not_editable',
  'rate_limited',
  'login_failed',
  'email_taken',
  'account_invalid',
  'account_required',
  'demo_budget_exhausted',
  'turn_text_invalid',
  'turn_in_progress',
  'nothing_to_retry',
  'nothing_to_undo',
  'operator_required',
  'action_not_on_line',
  'action_not_editable',
  'provider_unavailable',
  'provider_auth_failed',
  'provider_rate_limited',
  'provider_rejected',
  'provider_empty_reply',
  'provider_reasoning_only',
  'provider_connect_timeout',
  'provider_headers_timeout',
  'provider_idle_timeout',
  'provider_total_timeout',
  'turn_interrupted',
  'script_stopped',
  'encounter_invalid',
  'encounter_not_running',
  'encounter_already_running',
  'not_your_combatant',
  'not_your_turn',
];

const sortedKeys = (o: object) => Object.keys(o).sort();

function expectNoEmptyValues(map: Record<string, unknown>) {
  for (const [key, value] of Object.entries(map)) {
    expect(typeof value, key).toBe('string');
    expect((value as string).trim(), key).not.toBe('');
  }
}

describe('UI message maps', () => {
  it('have the same keys in en and zh-TW', () => {
    expect(sortedKeys(zhTW)).toEqual(sortedKeys(en));
    expect(Object.keys(en).length).toBeGreaterThan(10);
  });

  it('have no empty values', () => {
    expectNoEmptyValues(en);
    expectNoEmptyValues(zhTW);
  });

  it('translate the navigation into Chinese', () => {
    expect(zhTW['nav.tables']).not.toBe(en['nav.tables']);
    expect(zhTW['nav.settings']).toMatch(/[\u4e00-\u9fff]/);
  });

  it('are what the app loads for every language, part by part', () => {
    // test/setup.ts loaded every part of both languages, as the app does on demand
    for (const [lang, words] of [['en', en], ['zh-TW', zhTW]] as const) {
      for (const [key, text] of Object.entries(words)) expect(translate(lang, key as keyof typeof en), key).toBe(text);
    }
    for (const [lang, errors] of [['en', errorsEn], ['zh-TW', errorsZhTW]] as const) {
      for (const [code, text] of Object.entries(errors)) expect(errorText(lang, code), code).toBe(text);
    }
  });
});

describe('error message maps', () => {
  it('have exactly the server error codes in both languages', () => {
    expect(sortedKeys(errorsEn)).toEqual([...SERVER_ERROR_CODES].sort());
    expect(sortedKeys(errorsZhTW)).toEqual([...SERVER_ERROR_CODES].sort());
  });

  it('are flat maps with no empty values', () => {
    expectNoEmptyValues(errorsEn);
    expectNoEmptyValues(errorsZhTW);
  });

  it('use snake_case codes', () => {
    for (const code of Object.keys(errorsEn)) expect(code).toMatch(/^[a-z][a-z0-9]*(_[a-z0-9]+)*$/);
  });
});

describe('errorText', () => {
  it('translates known codes', () => {
    expect(errorText('en', 'database_unavailable')).toBe(errorsEn.database_unavailable);
    expect(errorText('zh-TW', 'database_unavailable')).toBe(errorsZhTW.database_unavailable);
    expect(errorText('zh-TW', 'not_found')).not.toBe(errorText('en', 'not_found'));
  });

  it('falls back to the generic message for unknown, empty and network codes', () => {
    for (const lang of LANGUAGES) {
      const generic = translate(lang, 'error.generic');
      expect(errorText(lang, 'no_such_code')).toBe(generic);
      expect(errorText(lang, '')).toBe(generic);
      expect(errorText(lang, undefined)).toBe(generic);
      expect(errorText(lang, 'network_error')).toBe(generic);
      // inherited object properties are not codes
      expect(errorText(lang, 'toString')).toBe(generic);
      expect(errorText(lang, '__proto__')).toBe(generic);
    }
    expect(errorText('en', 'nope')).not.toBe(errorText('zh-TW', 'nope'));
  });
});

// The codes of the text the server makes for people (gameplay/narrative:
// branch names in tree.go, notices in turn.go) and the script failure kinds
// (gameplay/scripting) a script.error names.
const SERVER_TEXT_CODES = [
  'branch.main',
  'branch.numbered',
  'script.message',
  'script.error',
  'user.guest', // gameplay/table/views.go codeGuestName (also gameplay/accounts)
  'seat.dm', // codeSeatDM
  'user.former', // codeFormerMember (a member whose account is gone)
  'check.everyone', // codeCheckEveryone (the DM's /check line)
];
const GO_SCRIPT_ERROR_KINDS = ['throw', 'timeout', 'memory', 'compile', 'empty', 'canceled', 'internal'];

describe('server-made text codes', () => {
  it('map every code the server sends to a message in both languages', () => {
    expect(Object.keys(SERVER_TEXT_KEYS).sort()).toEqual([...SERVER_TEXT_CODES].sort());
    expect([...SCRIPT_ERROR_KINDS].sort()).toEqual([...GO_SCRIPT_ERROR_KINDS].sort());
    const keys = [
      ...Object.values(SERVER_TEXT_KEYS),
      ...SCRIPT_ERROR_KINDS.map((k) => `server.script.kind.${k}`),
    ];
    for (const key of keys) {
      expect(Object.hasOwn(en, key), key).toBe(true);
      expect(Object.hasOwn(zhTW, key), key).toBe(true);
    }
  });

  it('are written in Chinese in zh-TW (a script’s own words pass through)', () => {
    for (const key of Object.values(SERVER_TEXT_KEYS)) {
      if (key === 'server.script.message') continue;
      expect(zhTW[key], key).toMatch(/[\u4e00-\u9fff]/);
    }
    expect(zhTW['solo.branches.numbered']).toContain('{n}');
    expect(en['solo.branches.numbered']).toContain('{n}');
    for (const map of [en, zhTW]) {
      expect(map['server.user.guest']).toContain('{number}');
      expect(map['server.check.everyone']).toContain('{check}');
    }
  });
});

describe('truthful texts', () => {
  it('no longer say the game, solo, scripts or MCP tokens are still to come', () => {
    for (const map of [en, zhTW]) {
      expect(map['home.intro']).not.toMatch(/still to come|尚未推出/);
      expect(map['settings.mcp.how']).not.toMatch(/not available yet|尚未提供/);
      expect(map['caps.unavailable']).not.toMatch(/yet|尚未/);
    }
  });
});
