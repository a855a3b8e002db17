/**
 * What the platform keeps about the calling app rather than the store's catalog: the access scopes
 * the merchant granted it (which a test or a developer grants and revokes), the Flow triggers it
 * sent (which Flow would start workflows from), and the store's translations of its products
 * (which a translation app or the merchant writes). A state file keeps them beside the store
 * (saved(), restore()).
 */
import { APP_ACCESS_SCOPES } from "../access-scopes.ts";

/** Scopes the app holds unless told otherwise: the ones the service asks for (APP_ACCESS_SCOPES), without read_translations. */
export const DEFAULT_ACCESS_SCOPES: readonly string[] = APP_ACCESS_SCOPES;

export interface ReceivedFlowTrigger {
  handle: string;
  payload: unknown;
  receivedAt: number;
}

/** One translated value: what a state file keeps of the translations. */
export interface SavedTranslation {
  resourceId: string;
  locale: string;
  key: string;
  value: string;
}

/** What a state file keeps of the installation. */
export interface SavedAppInstallation {
  /** Absent in a state file written before uninstalling was emulated: installed. */
  installed?: boolean;
  accessScopes: string[];
  flowTriggers: ReceivedFlowTrigger[];
  translations: SavedTranslation[];
}

export class AppInstallation {
  readonly #scopes: Set<string>;
  #installed = true;
  readonly flowTriggers: ReceivedFlowTrigger[] = [];
  /** Resource gid → locale → key → value. */
  readonly #translations = new Map<string, Map<string, Map<string, string>>>();

  constructor(scopes: readonly string[] = DEFAULT_ACCESS_SCOPES) {
    this.#scopes = new Set(scopes);
  }

  /** Whether the app is installed: once uninstalled, its access token is revoked (Admin API requests answer 401). */
  isInstalled(): boolean {
    return this.#installed;
  }

  /** The merchant uninstalls the app (POST /admin/app/uninstall): the token stops working. */
  uninstall(): void {
    this.#installed = false;
  }

  /** The app is installed again: the access token works again. */
  install(): void {
    this.#installed = true;
  }

  scopes(): string[] {
    return [...this.#scopes].sort();
  }

  hasScope(handle: string): boolean {
    return this.#scopes.has(handle);
  }

  grant(handles: readonly string[]): void {
    for (const handle of handles) this.#scopes.add(handle);
  }

  revoke(handles: readonly string[]): void {
    for (const handle of handles) this.#scopes.delete(handle);
  }

  /** Sets (a null value removes) translated values of a resource for one locale. */
  translate(resourceId: string, locale: string, values: Record<string, string | null>): void {
    let byLocale = this.#translations.get(resourceId);
    if (!byLocale) this.#translations.set(resourceId, (byLocale = new Map<string, Map<string, string>>()));
    let byKey = byLocale.get(locale);
    if (!byKey) byLocale.set(locale, (byKey = new Map<string, string>()));
    for (const [key, value] of Object.entries(values)) {
      if (value === null) byKey.delete(key);
      else byKey.set(key, value);
    }
  }

  translations(resourceId: string, locale: string): { key: string; value: string }[] {
    return [...(this.#translations.get(resourceId)?.get(locale)?.entries() ?? [])].map(([key, value]) => ({ key, value }));
  }

  /** The whole installation, for a snapshot of the state. */
  saved(): SavedAppInstallation {
    const translations: SavedTranslation[] = [];
    for (const [resourceId, byLocale] of this.#translations) {
      for (const [locale, byKey] of byLocale) for (const [key, value] of byKey) translations.push({ resourceId, locale, key, value });
    }
    return { installed: this.#installed, accessScopes: this.scopes(), flowTriggers: [...this.flowTriggers], translations };
  }

  /** Replaces the scopes, Flow triggers and translations with saved ones (a restart from a state file). */
  restore(saved: SavedAppInstallation): void {
    this.#installed = saved.installed ?? true;
    this.#scopes.clear();
    this.grant(saved.accessScopes);
    this.flowTriggers.length = 0;
    for (const trigger of saved.flowTriggers) this.flowTriggers.push(trigger);
    this.#translations.clear();
    for (const t of saved.translations) this.translate(t.resourceId, t.locale, { [t.key]: t.value });
  }
}
