import { type ChildProcessWithoutNullStreams, spawn } from 'node:child_process';
import { PcmDecoder } from './pcm';

/** A command-line tool of the speech path, killed at once (SIGKILL) when `signal` aborts. */
export interface Tool {
  child: ChildProcessWithoutNullStreams;
  /** Settles when it has exited: rejects on a non-zero exit, a kill or a failure to start. */
  exited: Promise<void>;
}

export function startTool(
  command: string,
  args: readonly string[],
  signal: AbortSignal,
  stdin?: string,
): Tool {
  const child = spawn(command, args, { stdio: ['pipe', 'pipe', 'pipe'], signal, killSignal: 'SIGKILL' });
  let stderr = '';
  child.stderr.on('data', (chunk: Buffer) => {
    if (stderr.length < 1000) stderr += chunk.toString();
  });
  // The tool may exit before reading all of its input: its exit code tells the story.
  child.stdin.on('error', () => {});
  const exited = new Promise<void>((resolve, reject) => {
    child.on('error', (error: NodeJS.ErrnoException) => {
      if (error.code === 'ENOENT') reject(new Error(`${command} is not installed`));
      else if (error.name === 'AbortError') reject(new Error(`${command} was stopped`));
      else reject(error);
    });
    child.on('close', (code, killed) => {
      if (code === 0) resolve();
      else reject(new Error(`${command} exited with ${killed ?? code}: ${stderr.trim().slice(0, 300)}`));
    });
  });
  exited.catch(() => {}); // observed by whoever awaits it; never an unhandled rejection
  if (stdin !== undefined) child.stdin.end(stdin);
  return { child, exited };
}

/** sox's output: 8 kHz mono signed 16-bit little-endian, on stdout. */
const RAW_8K_OUT = ['-t', 'raw', '-e', 'signed-integer', '-b', '16', '-c', '1', '-L', '-', 'rate', '8000'];

/**
 * sox converting `input` (its input options and file, `-` for stdin) to 8 kHz as it reads. Measured
 * against libsamplerate compiled to WebAssembly: sox resamples 8.5 s of 22.05 kHz speech in about
 * 12 ms with its start, on the other core, at higher quality; the WebAssembly one takes 115 ms of
 * this process's event loop (which paces the calls' RTP) at its fastest setting.
 *
 * sox writes through stdio, which holds 4 KB (a quarter second at 8 kHz) before it writes to a
 * pipe: `stdbuf -o0` (coreutils) lets each block out as it is made, and small blocks (--buffer)
 * keep the delay of audio arriving in real time (an HTTP answer) near 0.1 s instead of 0.6 s.
 */
export function startResampler(input: readonly string[], signal: AbortSignal): Tool {
  // -V1: failures only (not the odd clipped sample); -D: no dither, whose noise would make the same
  // text sound (and compare) different each time. Not -G: its headroom reclaim reads the whole input
  // before it writes anything.
  return startTool('stdbuf', ['-o0', 'sox', '--buffer', '512', '-V1', '-D', ...input, ...RAW_8K_OUT], signal);
}

/** Samples as sox writes them, bounded: past `maxSamples` the tool is killed and this throws. */
export async function* pcmOf(tool: Tool, maxSamples: number): AsyncGenerator<Int16Array> {
  const decoder = new PcmDecoder();
  let samples = 0;
  for await (const bytes of tool.child.stdout as AsyncIterable<Buffer>) {
    const pcm = decoder.decode(bytes);
    samples += pcm.length;
    if (samples > maxSamples) {
      tool.child.kill('SIGKILL');
      throw new Error(`more than ${Math.round(maxSamples / 8000)} s of audio`);
    }
    if (pcm.length > 0) yield pcm;
  }
  await tool.exited;
}
