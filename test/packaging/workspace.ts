import { execFile } from "node:child_process";
import { existsSync, readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { promisify } from "node:util";

/** The repository's root folder. */
export const ROOT = fileURLToPath(new URL("../../", import.meta.url));

const run = promisify(execFile);

/** The fields of a package.json that the packaging test reads. */
export interface Manifest {
  readonly name: string;
  readonly version: string;
  readonly private?: boolean;
  readonly engines?: Readonly<Record<string, string>>;
  readonly exports?: Readonly<Record<string, unknown>>;
  readonly dependencies?: Readonly<Record<string, string>>;
  readonly devDependencies?: Readonly<Record<string, string>>;
  readonly peerDependencies?: Readonly<Record<string, string>>;
  readonly peerDependenciesMeta?: Readonly<Record<string, { optional?: boolean }>>;
}

/** One workspace package: its folder and its manifest. */
export interface WorkspacePackage {
  readonly dir: string;
  readonly manifest: Manifest;
}

function readManifest(dir: string): Manifest {
  return JSON.parse(readFileSync(join(dir, "package.json"), "utf8")) as Manifest;
}

/** Every workspace package under `group` (`packages`, `examples`), or the folder itself. */
export function workspacePackages(group: string): WorkspacePackage[] {
  return readdirSync(join(ROOT, group), { withFileTypes: true })
    .filter((entry) => entry.isDirectory())
    .map((entry) => join(ROOT, group, entry.name))
    .filter((dir) => existsSync(join(dir, "package.json")))
    .map((dir) => ({ dir, manifest: readManifest(dir) }));
}

/** The packages meant for npm: every package under `packages/` that is not marked private. */
export function publishedPackages(): WorkspacePackage[] {
  return workspacePackages("packages").filter((pkg) => pkg.manifest.private !== true);
}

/** The version of a third-party package the repository tests with (test/ or root package.json). */
export function testedVersion(name: string): string {
  const version =
    readManifest(join(ROOT, "test")).dependencies?.[name] ?? readManifest(ROOT).devDependencies?.[name];
  if (version === undefined) throw new Error(`neither test/package.json nor package.json depends on ${name}`);
  return version;
}

/** Runs a command to its end; rejects with its output when it fails. */
export async function sh(
  command: string,
  args: readonly string[],
  options: { cwd: string; env?: NodeJS.ProcessEnv; timeoutMs?: number },
): Promise<string> {
  try {
    const { stdout } = await run(command, args, {
      cwd: options.cwd,
      env: { ...process.env, ...options.env },
      timeout: options.timeoutMs ?? 180_000,
      maxBuffer: 16 * 1024 * 1024,
    });
    return stdout;
  } catch (error) {
    const failed = error as { stdout?: string; stderr?: string; message: string };
    throw new Error(
      `${command} ${args.join(" ")} failed in ${options.cwd}: ${failed.message}\n${failed.stdout ?? ""}\n${failed.stderr ?? ""}`,
    );
  }
}

/**
 * Type-checks the project in `cwd` with the repository's TypeScript and returns the errors that point
 * at `cwd`'s own files or at `@llm-scheduler/*` declarations: other libraries' own type errors (seen
 * because the project checks every declaration file) are not ours to fix.
 */
export async function typeErrors(cwd: string): Promise<string[]> {
  const tsc = join(ROOT, "node_modules", "typescript", "bin", "tsc");
  const output = await run("node", [tsc, "-p", "."], { cwd, timeout: 180_000 }).then(
    ({ stdout }) => stdout,
    (error: { stdout?: string }) => error.stdout ?? String(error),
  );
  return output
    .split("\n")
    .filter((line) => /error TS\d+/.test(line))
    .filter((line) => !line.startsWith("node_modules/") || line.startsWith("node_modules/@llm-scheduler/"));
}

/** Packs one package with pnpm (which turns `workspace:` ranges into real ones); the tarball's path. */
export async function pack(pkg: WorkspacePackage, destination: string): Promise<string> {
  const out = await sh("pnpm", ["pack", "--pack-destination", destination, "--json"], { cwd: pkg.dir });
  const parsed = JSON.parse(out) as { filename: string };
  return parsed.filename;
}

/** The package.json inside a packed tarball, as npm will see it. */
export async function packedManifest(tarball: string): Promise<Manifest> {
  const text = await sh("tar", ["-xzOf", tarball, "package/package.json"], { cwd: ROOT });
  return JSON.parse(text) as Manifest;
}
