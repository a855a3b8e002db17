import type { AnyAction } from "../../../core/action.ts";
import { getIntegrations, patchIntegrationsAction } from "./integrations.ts";

/** Account integrations (e-mail providers, platform customers, pixel, flow triggers). */
export const ACCOUNT_INTEGRATIONS_ACTIONS: readonly AnyAction[] = [getIntegrations, patchIntegrationsAction];
