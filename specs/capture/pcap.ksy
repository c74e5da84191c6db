meta:
  id: pcap
  title: libpcap capture file (the classic tcpdump format)
  license: Apache-2.0
  ks-version: "0.11"
  endian: be
doc: |
  A classic libpcap capture file: a 24-byte global header, then one record per captured packet.

  The file is written in the byte order of the host that captured it; the magic number, read here as a
  big-endian u4, tells both that byte order and whether the second timestamp field counts microseconds
  (magic A1B2C3D4) or nanoseconds (A1B23C4D, tcpdump --time-stamp-precision nano). Every later integer
  (header and records) follows that byte order (`meta/endian` switches on the magic).

  Record lengths are checked against the data present before anything is read; a record longer than
  262144 bytes (libpcap's MAXIMUM_SNAPLEN) is refused as corrupt rather than buffered.
doc-ref: "https://datatracker.ietf.org/doc/draft-ietf-opsawg-pcap/ (PCAP Capture File Format, sections 4-5)"
seq:
  - id: magic
    type: u4be
    enum: magic
    valid:
      in-enum: true
    doc: Magic number as the bytes appear in the file; says byte order and timestamp resolution (draft section 4).
  - id: header
    type: header
    doc: The rest of the file header, in the file's byte order.
  - id: packets
    type: packet
    repeat: eos
    doc: Every packet record up to the end of the file.
types:
  header:
    meta:
      endian:
        switch-on: _parent.magic
        cases:
          magic::le_micro: le
          magic::le_nano: le
          magic::be_micro: be
          magic::be_nano: be
    doc: File header after the magic (draft section 4).
    seq:
      - id: version_major
        type: u2
        valid:
          eq: 2
        doc: Major version, 2 since libpcap 0.4 (draft section 4).
      - id: version_minor
        type: u2
        doc: Minor version, 4 in files written today (draft section 4).
      - id: thiszone
        type: s4
        doc: Historic GMT-to-local correction in seconds; always 0 in practice and ignored (draft section 4).
      - id: sigfigs
        type: u4
        doc: Historic timestamp accuracy; always 0 and ignored (draft section 4).
      - id: snaplen
        type: u4
        doc: The most bytes of one packet the capture kept (tcpdump -s); longer packets were cut (draft section 4).
      - id: linktype
        type: u4
        doc: |
          LINKTYPE_ value of every packet's link-layer header in the low 16 bits (1 Ethernet, 0 BSD loopback,
          101 raw IP, 113 Linux SLL, 276 Linux SLL2); the upper bits carry the FCS length flag (draft section 4,
          https://www.tcpdump.org/linktypes.html).
  packet:
    meta:
      endian:
        switch-on: _root.magic
        cases:
          magic::le_micro: le
          magic::le_nano: le
          magic::be_micro: be
          magic::be_nano: be
    doc: One packet record, a 16-byte header and the captured bytes (draft section 5).
    seq:
      - id: ts_sec
        type: u4
        doc: Capture time, seconds since 1970-01-01 00:00:00 UTC (draft section 5).
      - id: ts_frac
        type: u4
        doc: Fraction of the second, in microseconds or nanoseconds as the magic says (draft section 5).
      - id: incl_len
        type: u4
        valid:
          max: 262144
        doc: Bytes of the packet stored in this record (at most snaplen); larger values mean a corrupt file.
      - id: orig_len
        type: u4
        doc: Length of the packet on the wire; more than incl_len when the capture cut it (draft section 5).
      - id: data
        size: incl_len
        doc: The captured bytes, starting with the link-layer header the file header's linktype names.
enums:
  magic:
    0xa1b2c3d4:
      id: be_micro
      doc: Big-endian file, microsecond timestamps.
    0xd4c3b2a1:
      id: le_micro
      doc: Little-endian file, microsecond timestamps.
    0xa1b23c4d:
      id: be_nano
      doc: Big-endian file, nanosecond timestamps.
    0x4d3cb2a1:
      id: le_nano
      doc: Little-endian file, nanosecond timestamps.
