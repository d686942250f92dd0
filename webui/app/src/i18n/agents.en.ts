// English strings of the agent tokens of a solo adventure or scenario
// (solo grants); en.ts spreads them in.
export const agentsEn = {
  'agents.open': 'Agents (MCP)',
  'agents.title': 'Play with an AI agent',
  'agents.introAdventure':
    'Give an AI agent (Claude, or any MCP client) a token for this adventure: it can read the story, take turns, retry, fork, edit story cards, read Insights and memories — here and nowhere else. Turns it takes appear here.',
  'agents.introScenario':
    'Give an AI agent (Claude, or any MCP client) a token for this scenario: it can read it, draft and edit its story cards, and test its scripts — here and nowhere else.',
  'agents.label': 'Name (optional)',
  'agents.labelHint': 'To tell your tokens apart, e.g. “Claude Desktop”.',
  'agents.days': 'Works for',
  'agents.daysN': '{n} days',
  'agents.create': 'Create token',
  'agents.newTitle': 'Your new token',
  'agents.once': 'Store this token now: it will not be shown again.',
  'agents.done': 'I stored it',
  'agents.list': 'Tokens',
  'agents.none': 'No tokens yet.',
  'agents.unnamed': 'Unnamed token',
  'agents.status.active': 'Active',
  'agents.status.revoked': 'Revoked',
  'agents.status.expired': 'Expired',
  'agents.expires': 'expires {date}',
  'agents.lastSeen': 'last used {date}',
  'agents.neverSeen': 'never used',
  'agents.revoke': 'Revoke',
  'agents.revokeWhat': 'Revoke {what}',
  'agents.revokeAsk': 'Revoke this token? The agent’s next call will fail.',
  'agents.revokeYes': 'Yes, revoke',
  'agents.close': 'Close',
  'agents.failed': 'The tokens could not be loaded.',
};
