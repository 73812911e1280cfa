/**
 * Whether a process of that id runs on this host (or exists but is not ours to signal): for
 * what a process that may have been killed left behind (a load's folder).
 */
export function processRuns(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}
