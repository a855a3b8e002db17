/**
 * The Admin API version the service speaks, in one place: the client's URL, the emulator's answer
 * and webhook header, and the vendored schema (`platform/admin-2026-07.graphql`) all follow it.
 */
export const ADMIN_API_VERSION = "2026-07";
