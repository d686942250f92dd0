// English UI strings. zh-TW.ts must have exactly the same keys (a test checks).
export const en = {
  'app.name': 'Adventure Table',
  'nav.label': 'Main',
  'nav.home': 'Home',
  'nav.tables': 'Tables',
  'nav.solo': 'Solo adventures',
  'nav.settings': 'Settings',

  'lang.label': 'Language',
  'lang.en': 'English',
  'lang.zh-TW': '繁體中文',

  'common.loading': 'Loading…',
  'common.yes': 'Yes',
  'common.no': 'No',
  'common.retry': 'Try again',

  'error.generic': 'Something went wrong. Check that the server is running and try again.',

  'home.title': 'Welcome to Adventure Table',
  'home.intro':
    'Adventure Table is a place to play tabletop role-playing games with friends in the browser, with AI agents at the table, or solo with an AI narrator. This build is an early foundation: the server runs, but the game features are still to come.',
  'status.title': 'Server status',
  'status.state': 'Status',
  'status.ok': 'Running',
  'status.degraded': 'Running with problems',
  'status.mode': 'Mode',
  'status.mode.local': 'Local (single user on this computer)',
  'status.mode.hosted': 'Hosted (guests and accounts)',
  'status.version': 'Version',
  'status.database': 'Database',
  'status.database.reachable': 'Database reachable',
  'status.schema': 'Schema version',
  'status.failed': 'Could not read the server status.',

  'caps.title': 'What this server build offers',
  'caps.loading': 'Checking which features this server build offers…',
  'caps.available': 'Available',
  'caps.unavailable': 'Not available yet',
  'caps.table': 'Multiplayer tables',
  'caps.ai_actor': 'AI agents in seats',
  'caps.solo': 'Solo narrated adventures',
  'caps.scripting': 'Adventure scripts',
  'caps.combat': 'Combat tracking',
  'caps.timeline': 'Story timeline',
  'caps.mcp': 'MCP endpoint for AI agents',
  'caps.api_docs': 'API documentation',

  'tables.title': 'Tables',
  'tables.empty': 'No tables yet — multiplayer tables arrive in a coming release.',
  'tables.explain':
    'A table will be where a game master and players, human or AI, meet for a campaign. Nothing can be created here yet.',

  'solo.title': 'Solo adventures',
  'solo.empty': 'No solo adventures yet — solo play with an AI narrator arrives in a coming release.',
  'solo.explain':
    'A solo adventure will be one player and a language model that narrates. Nothing can be started here yet.',

  'settings.title': 'Settings',
  'settings.language': 'Interface language',
  'settings.api.title': 'API',
  'settings.api.docs': 'API documentation',
  'settings.api.docsHint': 'Interactive documentation of the HTTP API served by this server.',
  'settings.mcp.title': 'MCP endpoint for AI agents',
  'settings.mcp.url': 'Endpoint URL',
  'settings.mcp.how':
    'An AI agent connects to this URL as a remote MCP server with a bearer token; tokens will be issued from a seat at a table, which is not available yet.',

  'docs.title': 'API documentation',
  'docs.loading': 'Loading the API documentation…',
  'docs.failed': 'The API documentation could not be loaded.',
  'docs.unavailable': 'This server build does not offer API documentation.',

  'notFound.title': 'Page not found',
  'notFound.body': 'There is no page at this address.',
  'notFound.home': 'Go to the home page',
} as const;

export type MessageKey = keyof typeof en;
