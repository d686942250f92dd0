import type { MessageKey } from './en';

// Traditional Chinese UI strings: exactly the keys of en.ts.
export const zhTW: Record<MessageKey, string> = {
  'app.name': 'Adventure Table',
  'nav.label': '主選單',
  'nav.home': '首頁',
  'nav.tables': '遊戲桌',
  'nav.solo': '單人冒險',
  'nav.settings': '設定',

  'lang.label': '語言 (Language)',
  'lang.en': 'English',
  'lang.zh-TW': '繁體中文',

  'common.loading': '載入中…',
  'common.yes': '是',
  'common.no': '否',
  'common.retry': '再試一次',

  'error.generic': '發生錯誤。請確認伺服器正在執行，然後再試一次。',

  'home.title': '歡迎來到 Adventure Table',
  'home.intro':
    'Adventure Table 讓你在瀏覽器中與朋友一起玩桌上角色扮演遊戲，也可以讓 AI 代理入座，或與 AI 敘事者進行單人冒險。這個版本只是初期的基礎：伺服器已可運作，但遊戲功能尚未推出。',
  'status.title': '伺服器狀態',
  'status.state': '狀態',
  'status.ok': '運作中',
  'status.degraded': '運作中，但有問題',
  'status.mode': '模式',
  'status.mode.local': '本機（這台電腦上的單一使用者）',
  'status.mode.hosted': '託管（訪客與帳號）',
  'status.version': '版本',
  'status.database': '資料庫',
  'status.database.reachable': '資料庫可連線',
  'status.schema': '資料結構版本',
  'status.failed': '無法讀取伺服器狀態。',

  'caps.title': '此伺服器版本提供的功能',
  'caps.loading': '正在確認此伺服器版本提供哪些功能…',
  'caps.available': '可使用',
  'caps.unavailable': '尚未提供',
  'caps.table': '多人遊戲桌',
  'caps.ai_actor': 'AI 代理入座',
  'caps.solo': '單人敘事冒險',
  'caps.scripting': '冒險腳本',
  'caps.combat': '戰鬥追蹤',
  'caps.timeline': '故事時間軸',
  'caps.mcp': '供 AI 代理使用的 MCP 端點',
  'caps.api_docs': 'API 文件',

  'tables.title': '遊戲桌',
  'tables.empty': '尚無遊戲桌 — 多人遊戲桌將在後續版本推出。',
  'tables.explain': '遊戲桌將是主持人與玩家（真人或 AI）進行戰役的地方。目前還無法在此建立任何東西。',

  'solo.title': '單人冒險',
  'solo.empty': '尚無單人冒險 — 與 AI 敘事者的單人遊戲將在後續版本推出。',
  'solo.explain': '單人冒險將由一位玩家與負責敘事的語言模型進行。目前還無法在此開始任何冒險。',

  'settings.title': '設定',
  'settings.language': '介面語言',
  'settings.api.title': 'API',
  'settings.api.docs': 'API 文件',
  'settings.api.docsHint': '此伺服器所提供 HTTP API 的互動式文件。',
  'settings.mcp.title': '供 AI 代理使用的 MCP 端點',
  'settings.mcp.url': '端點網址',
  'settings.mcp.how':
    'AI 代理會以持有者權杖（bearer token）將此網址當作遠端 MCP 伺服器連線；權杖將由遊戲桌上的座位發放，目前尚未提供。',

  'docs.title': 'API 文件',
  'docs.loading': '正在載入 API 文件…',
  'docs.failed': '無法載入 API 文件。',
  'docs.unavailable': '此伺服器版本不提供 API 文件。',

  'notFound.title': '找不到頁面',
  'notFound.body': '這個位址沒有任何頁面。',
  'notFound.home': '回到首頁',
};
