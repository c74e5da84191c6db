// A broadcast-protocol decoder written from scratch (docs/how-to/client-authors.md), tested by the kit:
//   inlong-proto tck -p broadcast --rule decode --rule cut --decoder 'node examples/client-authors/broadcast_decoder.js'
// Reads a stream of frames on stdin and prints one JSON line per frame, in the decode shape; a frame the input
// ends inside becomes one error item of kind "truncated". It checks nothing else (the reject rule is not its aim).
"use strict";
const input = require("fs").readFileSync(0);
const COMMANDS = { 0: "data_request", 1: "data_response" };
const STATUS = { 0x30: "last_data_not_found", 0x31: "history", 0x32: "real_time" };
// "[yyyy-MM-dd HH:mm:ss.SSS]" (25 bytes) -> the text inside the brackets
const timestamp = (at) => input.toString("latin1", at + 1, at + 24);
const print = (item) => process.stdout.write(JSON.stringify(item) + "\n");

let pos = 0;
while (pos < input.length) {
  const need = pos + 8 > input.length ? 8 : input.readInt32BE(pos);
  if (pos + need > input.length) {
    print({ protocol: "broadcast", offset: pos, length: input.length - pos, message_type: null, direction: null,
            error: { kind: "truncated", offset: input.length, field: "",
                     reason: `input ends inside a frame: ${input.length - pos} of ${need} bytes present` } });
    break;
  }
  const command = COMMANDS[input.readInt32BE(pos + 4)];
  const body = command === "data_request"
    ? { last_timestamp: timestamp(pos + 8), last_data: input.readInt32BE(pos + 33) }
    : { status: STATUS[input[pos + 8]], timestamp: timestamp(pos + 9), data: input.readInt32BE(pos + 34) };
  print({
    protocol: "broadcast", offset: pos, length: need, message_type: command,
    direction: command === "data_request" ? "request" : "response",
    total_length: need, command_id: command, body: { [command]: body },
  });
  pos += need;
}
