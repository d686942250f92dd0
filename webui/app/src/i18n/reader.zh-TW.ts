import type { readerEn } from './reader.en';

// Traditional Chinese strings of the solo reader, the starter scenarios and
// the links to the model settings: exactly the keys of reader.en.ts.
export const readerZhTW: Record<keyof typeof readerEn, string> = {
  'reader.more': '更多動作',
  'reader.edit': '編輯上一回合',
  'reader.options': '閱讀選項',
  'reader.font': '字型',
  'reader.font.serif': '襯線',
  'reader.font.sans': '無襯線',
  'reader.font.hyperlegible': '高辨識度',
  'reader.size': '文字大小',
  'reader.size.s': '小',
  'reader.size.m': '中',
  'reader.size.l': '大',
  'reader.size.xl': '特大',
  'reader.you': '你',
  'reader.narrator': '敘事者',
  'reader.back': '回到所有單人冒險',

  'starters.title': '入門故事',
  'starters.intro': 'Adventure Table 內建的現成故事。點一下就開始你自己的副本。',
  'starters.failed': '無法載入入門故事。',
  'starters.start': '開始',
  'starters.startLabel': '開始「{title}」',
  'starters.scripted': '含腳本',
  'starters.scriptedHint': '這個故事會執行腳本（一座報時的鐘）。',
  'starters.cards': '{n} 張故事卡',
  'starters.failedStart': '無法開始這個故事。',
  'starters.empty': '第一次來？挑一個故事，現在就開始玩。',

  'modelSettings.link': '開啟模型設定',
  'provider.advanced': '進階',
  'provider.advancedHint': '脈絡大小、回覆長度、取樣、推理與記憶庫。預設值適合大多數模型。',
};
