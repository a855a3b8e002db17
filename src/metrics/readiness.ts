import type pg from "pg";
import { readMigrations } from "../db/migrate.ts";

interface ReadinessReport {
  ready: boolean;
  /** What is not ready: `database`, `migrations`, `shutting_down`; empty when ready. */
  reasons: string[];
}

/**
 * /readyz: ready only while the database answers, every sql/ migration is recorded in
 * app_migrations, and the process is not shutting down. `stopping()` is called first on the
 * way down, so a load balancer stops sending before the listener closes. /healthz stays liveness.
 */
export class Readiness {
  #stopping = false;
  #migrationIds: Promise<number[]> | undefined;
  readonly #pool: pg.Pool;

  constructor(pool: pg.Pool) {
    this.#pool = pool;
  }

  stopping(): void {
    this.#stopping = true;
  }

  async check(): Promise<ReadinessReport> {
    if (this.#stopping) return { ready: false, reasons: ["shutting_down"] };
    const reasons: string[] = [];
    try {
      // The files do not change while the process runs: read once.
      this.#migrationIds ??= readMigrations().then(
        (ms) => ms.map((m) => m.id),
        (error: unknown) => {
          this.#migrationIds = undefined;
          throw error;
        },
      );
      const ids = await this.#migrationIds;
      const { rows } = await this.#pool.query<{ missing: number }>(
        "select count(*)::int as missing from unnest($1::int[]) as f(id) where not exists (select 1 from app_migrations m where m.id = f.id)",
        [ids],
      );
      if ((rows[0]?.missing ?? 1) > 0) reasons.push("migrations");
    } catch (error) {
      // No app_migrations table yet is migrations missing; anything else is the database not answering.
      reasons.push((error as { code?: string }).code === "42P01" ? "migrations" : "database");
    }
    if (this.#stopping) reasons.push("shutting_down");
    return { ready: reasons.length === 0, reasons };
  }
}
