/** True while a process with this id exists (a zombie counts: it is not reaped yet). */
export function processExists(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    // EPERM: it exists, but belongs to another user (a PostgreSQL run as `postgres`, say).
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}
