// English strings of the character sheet's reading view (the sheet to play
// from, apart from the editor) and the links to it; en.ts spreads them in.
export const sheetEn = {
  'title.sheet': 'Character sheet',
  'sheet.abbr.str': 'STR',
  'sheet.abbr.dex': 'DEX',
  'sheet.abbr.con': 'CON',
  'sheet.abbr.int': 'INT',
  'sheet.abbr.wis': 'WIS',
  'sheet.abbr.cha': 'CHA',
  'sheet.checkOf': '{check} check',
  'sheet.rollLabel': 'Roll {what}',
  'sheet.edit': 'Edit',
  'sheet.rollsTo': 'Playing at {campaign} ({room}): click a number to roll it at the table.',
  'sheet.openTable': 'Open the table',
  'sheet.noTable':
    'Not at a running table, so nothing here rolls: rolls are made at the table, where the DM sees them. Sit this character at a table and start playing to roll from the sheet.',
  'sheet.advantage': 'with advantage',
  'sheet.disadvantage': 'disadvantage',
  'sheet.defenses': 'Damage defenses',
  'sheet.toHit': 'To hit',
  'sheet.cantrip': 'Cantrip',
  'sheet.spellLevel': 'Level {n}',
  'sheet.inFeed': 'In the table’s feed',
  'sheet.open': 'Sheet',
  'sheet.openOf': 'Open the sheet of {name}',
  'sheet.editOf': 'Edit {name}',
};
