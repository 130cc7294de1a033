// The slice of the WebExtension `chrome.*` API this extension uses, so its
// scripts can be type-checked without a dependency on @types/chrome. Not
// shipped in the packaged extension.

declare namespace chrome {
  interface ExtensionEvent<L extends (...args: any[]) => unknown> {
    addListener(listener: L): void;
    removeListener(listener: L): void;
    hasListeners(): boolean;
  }

  namespace storage {
    interface StorageChange {
      oldValue?: unknown;
      newValue?: unknown;
    }
    const local: {
      get(keys: null | string | string[] | Record<string, unknown>): Promise<Record<string, unknown>>;
      set(items: Record<string, unknown>): Promise<void>;
    };
    const onChanged: ExtensionEvent<(changes: Record<string, StorageChange>, areaName: string) => void>;
  }

  namespace declarativeNetRequest {
    interface Rule {
      id: number;
      priority?: number;
      action: { type: string; redirect?: { regexSubstitution?: string } };
      condition: { regexFilter?: string; resourceTypes?: string[] };
    }
    function getDynamicRules(): Promise<Rule[]>;
    function updateDynamicRules(options: { removeRuleIds?: number[]; addRules?: Rule[] }): Promise<void>;
  }

  namespace runtime {
    const id: string;
    interface MessageSender {
      id?: string;
      url?: string;
    }
    function getURL(path: string): string;
    function sendMessage(message: unknown): Promise<any>;
    function openOptionsPage(): Promise<void>;
    const onInstalled: ExtensionEvent<
      (details: { reason: 'install' | 'update' | 'chrome_update' | 'shared_module_update' | 'browser_update' }) => void
    >;
    const onStartup: ExtensionEvent<() => void>;
    const onMessage: ExtensionEvent<(message: any, sender: MessageSender, sendResponse: (response?: unknown) => void) => boolean | void>;
  }

  namespace tabs {
    interface Tab {
      id?: number;
      url?: string;
      title?: string;
      active?: boolean;
    }
    function create(props: { url: string; active?: boolean }): Promise<Tab>;
    function update(tabId: number, props: { url: string }): Promise<Tab | undefined>;
    function update(props: { url: string }): Promise<Tab | undefined>;
    function query(query: { active?: boolean; currentWindow?: boolean }): Promise<Tab[]>;
  }

  namespace alarms {
    interface Alarm {
      name: string;
      scheduledTime: number;
      periodInMinutes?: number;
    }
    function get(name: string): Promise<Alarm | undefined>;
    function create(name: string, info: { periodInMinutes?: number; delayInMinutes?: number }): Promise<void>;
    const onAlarm: ExtensionEvent<(alarm: Alarm) => void>;
  }

  namespace webNavigation {
    interface NavigationDetails {
      tabId: number;
      frameId: number;
      url: string;
      /** Chrome only; Firefox leaves it undefined. */
      documentLifecycle?: 'prerender' | 'active' | 'cached' | 'pending_deletion';
    }
    const onBeforeNavigate: ExtensionEvent<(details: NavigationDetails) => void>;
  }

  namespace omnibox {
    interface SuggestResult {
      content: string;
      description: string;
    }
    type OnInputEnteredDisposition = 'currentTab' | 'newForegroundTab' | 'newBackgroundTab';
    function setDefaultSuggestion(suggestion: { description: string }): void;
    const onInputStarted: ExtensionEvent<() => void>;
    const onInputChanged: ExtensionEvent<(text: string, suggest: (results: SuggestResult[]) => void) => void>;
    const onInputEntered: ExtensionEvent<(text: string, disposition: OnInputEnteredDisposition) => void>;
  }

  namespace scripting {
    interface InjectionResult {
      result?: unknown;
    }
    function executeScript(injection: { target: { tabId: number }; func: () => unknown }): Promise<InjectionResult[]>;
  }
}
