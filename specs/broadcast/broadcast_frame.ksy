meta:
  id: broadcast_frame
  title: Simple Broadcasting Protocol frame (8-byte header + data request or data response body)
  license: Apache-2.0
  ks-version: "0.11"
  endian: be
  imports:
    - ../common/bracketed_timestamp
-inlong:
  protocol: broadcast
  frame: true
  registry:
    framing: frames
    doc: the simple broadcasting protocol (a client resumes after its last value, the server replays and pushes)
    ports: []  # no default port: found by content alone
    detect: {order: 70}  # no magic: last, after the protocols that have one
    upstream: false  # this project's spec is its definition (docs/protocols/broadcast.md)
    # decode's table: the command, then the request's resume point or the response's status, time and value
    summary: ["{message_type}", "after {body.*.last_timestamp}", "last={body.*.last_data}", "{body.*.status}",
              "{body.*.timestamp}", "data={body.*.data}"]
doc: |
  One frame of the simple broadcasting protocol: a client asks for everything after the last value it
  holds, the server replays its history and then pushes each new value in real time.

  Decisions on what the seed leaves open (the same in codec, server and client):
  * Integers are big-endian two's complement (Java DataOutputStream's `int`).
  * Timestamps include their brackets: 25 ASCII bytes (see bracketed_timestamp). A request frame is
    therefore 37 bytes and a response frame 38 bytes; no other size is valid.
  * A client that holds no data yet sends the epoch timestamp `[1970-01-01 00:00:00.000]` with
    last_data 0; the server finds no match and answers with status last_data_not_found.
  * The server matches a request by timestamp and value. When it finds them it replays every later
    item with status history; when it does not, the first replayed item carries status
    last_data_not_found and the rest of the history carries status history. Items produced after the
    replay carry status real_time. An empty history sends nothing until the first real-time item.
  * A frame is exactly as long as its total_length says, header included; total_length must equal
    8 plus the size of the body its command_id names.
doc-ref: "docs/protocols/broadcast.md (the Simple Broadcasting Protocol)"
seq:
  - id: total_length
    type: s4
    valid:
      min: 37
      max: 38
    doc: |
      Length of the whole frame in bytes, header included (= header.length + body.length).
      Derived on encode. Only 37 (request) and 38 (response) exist, so any other value is rejected from
      the header alone and garbage is detected before a body is awaited.
  - id: command_id
    type: s4
    enum: command
    valid:
      in-enum: true
    doc: Which body follows; 0 = data request (client to server), 1 = data response (server to client).
  - id: body
    size: total_length - 8
    type:
      switch-on: command_id
      cases:
        command::data_request: data_request
        command::data_response: data_response
    valid:
      expr: >-
        total_length == 8 + (command_id == command::data_request ? sizeof<data_request>
        : sizeof<data_response>)
    doc: The message body; its size must be exactly the size of the body type command_id names.
types:
  data_request:
    -inlong:
      direction: request
    doc: Sent by a client on connect (and after every reconnect) to resume after its last value.
    seq:
      - id: last_timestamp
        type: bracketed_timestamp
        doc: Timestamp of the last value the client holds (the epoch timestamp if it holds none).
      - id: last_data
        type: s4
        valid:
          min: 0
          max: 99
        doc: The last value the client holds, in [0, 100) (0 if it holds none).
  data_response:
    -inlong:
      direction: response
    doc: One value pushed by the server, tagged with how it relates to the client's request.
    seq:
      - id: status
        type: u1
        enum: status
        valid:
          in-enum: true
        doc: One ASCII digit saying whether the value is replayed history or real time.
      - id: timestamp
        type: bracketed_timestamp
        doc: When the server produced the value.
      - id: data
        type: s4
        valid:
          min: 0
          max: 99
        doc: The value, a random integer in [0, 100).
enums:
  command:
    0:
      id: data_request
      doc: Client to server, body is data_request (29 bytes).
    1:
      id: data_response
      doc: Server to client, body is data_response (30 bytes).
  status:
    0x30:
      id: last_data_not_found
      doc: ASCII '0'. The client's last value was not found; the server sends its whole history.
    0x31:
      id: history
      doc: ASCII '1'. The value is replayed history.
    0x32:
      id: real_time
      doc: ASCII '2'. The value is real-time data.
