import type { agentsEn } from './agents.en';

// 單人冒險或劇本的代理權杖（solo grants）的正體中文字串。
export const agentsZhTW: Record<keyof typeof agentsEn, string> = {
  'agents.open': '代理（MCP）',
  'agents.title': '與 AI 代理一起玩',
  'agents.introAdventure':
    '給 AI 代理（Claude 或任何 MCP 用戶端）一個這場冒險的權杖：它可以閱讀故事、進行回合、重試、分支、編輯故事卡、查看洞察與記憶——只限這裡。它進行的回合會出現在這裡。',
  'agents.introScenario':
    '給 AI 代理（Claude 或任何 MCP 用戶端）一個這個劇本的權杖：它可以閱讀劇本、起草與編輯故事卡、測試腳本——只限這裡。',
  'agents.label': '名稱（選填）',
  'agents.labelHint': '用來分辨你的權杖，例如「Claude Desktop」。',
  'agents.days': '有效期',
  'agents.daysN': '{n} 天',
  'agents.create': '建立權杖',
  'agents.newTitle': '你的新權杖',
  'agents.once': '請立即保存這個權杖：它不會再顯示。',
  'agents.done': '我已保存',
  'agents.list': '權杖',
  'agents.none': '還沒有權杖。',
  'agents.unnamed': '未命名的權杖',
  'agents.status.active': '有效',
  'agents.status.revoked': '已撤銷',
  'agents.status.expired': '已過期',
  'agents.expires': '{date} 到期',
  'agents.lastSeen': '上次使用 {date}',
  'agents.neverSeen': '尚未使用',
  'agents.revoke': '撤銷',
  'agents.revokeWhat': '撤銷 {what}',
  'agents.revokeAsk': '要撤銷這個權杖嗎？代理的下一次呼叫將會失敗。',
  'agents.revokeYes': '是，撤銷',
  'agents.close': '關閉',
  'agents.failed': '無法載入權杖。',
};
