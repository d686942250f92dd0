import type { sheetEn } from './sheet.en';

// Traditional Chinese strings of the character sheet's reading view and the
// links to it: exactly the keys of sheet.en.ts.
export const sheetZhTW: Record<keyof typeof sheetEn, string> = {
  'title.sheet': '角色卡',
  'sheet.abbr.str': '力量',
  'sheet.abbr.dex': '敏捷',
  'sheet.abbr.con': '體質',
  'sheet.abbr.int': '智力',
  'sheet.abbr.wis': '感知',
  'sheet.abbr.cha': '魅力',
  'sheet.checkOf': '{check}檢定',
  'sheet.rollLabel': '擲{what}',
  'sheet.edit': '編輯',
  'sheet.rollsTo': '正在「{campaign}」（{room}）遊戲中：點一個數字就會在桌上擲骰。',
  'sheet.openTable': '前往遊戲桌',
  'sheet.noTable': '目前不在進行中的遊戲桌上，這裡的數字都不會擲骰：擲骰在桌上進行，讓 DM 看得到。讓這個角色入座並開始遊戲後，就能從角色卡擲骰。',
  'sheet.advantage': '具優勢',
  'sheet.disadvantage': '劣勢',
  'sheet.defenses': '傷害抗性',
  'sheet.toHit': '命中',
  'sheet.cantrip': '戲法',
  'sheet.spellLevel': '{n} 環',
  'sheet.inFeed': '在遊戲桌的訊息中',
  'sheet.open': '角色卡',
  'sheet.openOf': '開啟 {name} 的角色卡',
  'sheet.editOf': '編輯 {name}',
};
