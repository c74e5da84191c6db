/* ---- runtime of the compiled capture walker (tools/ksygen/capture_runtime.c, its own
 * translation unit of inlong_proto._compiled, copied once into generated/native).
 *
 * walk(buffer, server_ports, idle_ns, recent, ...) reads a whole pcap / pcapng file: the container, link -> IP
 * -> TCP (every header through the readers generated from specs/capture into
 * capture_readers.h, included below), and the TCP
 * bookkeeping of inlong_proto.capture for the case it is sure of: every direction's data in order, nothing
 * lost or cut, retransmitted bytes only equal to the first copy. It returns each connection's ends, where it
 * began and ended, and per direction its stream bytes with an index (stream offset -> packet), or, at
 * the first thing it is not sure of, the reason, so that the caller runs the pure-Python path instead.
 * It knows no byte position of any header: it chooses which reader runs next (link type, EtherType, IP
 * version, protocol number, as inlong_proto/capture/tcp.py does) and does sequence arithmetic.
 * Memory: the stream bytes and the index, bounded by the file's size, and per open connection (or closed
 * 4-tuple still remembered) its state; a connection's own buffers go when it is finished, and one without a
 * stream byte goes whole once its 4-tuple is forgotten (CaptureDecoder's limits, passed in).
 */
#include "runtime.h"

#include "capture_readers.h"  /* generated: the tables this runtime reads */

/* ---- dispatch values: the same as inlong_proto/capture/tcp.py (DISPATCH below; a test compares). ---- */
enum { LINK_NULL = 0, LINK_ETHERNET = 1, LINK_RAW = 101, LINK_LOOP = 108, LINK_SLL = 113, LINK_IPV4 = 228,
       LINK_IPV6 = 229, LINK_SLL2 = 276 };
enum { ETHERTYPE_IPV4 = 0x0800, ETHERTYPE_IPV6 = 0x86DD, AF_INET_ = 2, IPPROTO_TCP_ = 6 };
static const int64_t AF_INET6_[] = {10, 24, 28, 30};
#define DISPATCH "{\"LINK_NULL\": 0, \"LINK_ETHERNET\": 1, \"LINK_RAW\": [101, 228, 229], \"LINK_LOOP\": 108, " \
    "\"LINK_SLL\": 113, \"LINK_SLL2\": 276, \"ETHERTYPE_IPV4\": 2048, \"ETHERTYPE_IPV6\": 34525, \"AF_INET\": 2, " \
    "\"AF_INET6\": [10, 24, 28, 30], \"IPPROTO_TCP\": 6}"

typedef struct { uint8_t *p; Py_ssize_t len, cap; } cbuf;

static int cbuf_put(cbuf *b, const void *src, Py_ssize_t n)
{
    if (n <= 0) return 1;
    if (b->len + n > b->cap) {
        Py_ssize_t cap = b->cap ? b->cap : 256;
        while (cap < b->len + n) cap *= 2;
        uint8_t *p = realloc(b->p, (size_t)cap);
        if (p == NULL) return 0;
        b->p = p;
        b->cap = cap;
    }
    memcpy(b->p + b->len, src, (size_t)n);
    b->len += n;
    return 1;
}

#define EP 19  /* an endpoint: IP version, 16 address bytes (IPv4 in the first 4), port (big-endian) */

typedef struct {
    uint32_t next_seq;
    int has_next, has_fin, closed;
    int64_t offset, fin_at;
    cbuf data, index;  /* index: int64 (stream offset, packet number, time ns, file offset) per data segment;
                        * once the connection is finished both move to the walk's `out` buffers (their .p
                        * freed, their .len kept) at out_at and out_row */
    Py_ssize_t out_at, out_row;
} cside;

/* A connection's place in the tables of CaptureDecoder: open (in the open list, and in the SYN-only list while
 * it has seen SYNs only), closed (its 4-tuple remembered for its stray packets), gone (its 4-tuple forgotten;
 * its rows stay), or free (gone without a stream byte: the slot is reused). */
enum { C_OPEN = 1, C_CLOSED, C_GONE, C_FREE };

typedef struct {
    uint8_t client[EP], server[EP];
    int64_t first_offset, last_ns, finish_at, order, number;  /* number: CaptureDecoder's flow number */
    int state, syn_only, moved;
    int64_t link[2][2];  /* [0: the open or closed list, 1: the SYN-only list][0 previous, 1 next], -1 none */
    cside side[2];
} cconn;

typedef struct { int64_t head, tail, count; } clist;  /* least recently active first */

typedef struct {
    cconn *conns;
    Py_ssize_t n_conns, cap_conns;
    int64_t free_conn;  /* free connections, chained through link[0][1] */
    uint8_t *keys;  /* open addressing: slots of 2 * EP key bytes -> the 4-tuple's current connection */
    int64_t *slot_conn;
    Py_ssize_t slots, used;
    int64_t n_keys, n_opened, now_ns, idle_ns, recent;  /* n_opened: connections opened (flow numbers) */
    int64_t syn_ns, max_syn, max_open, max_closed;  /* CaptureDecoder's SYN_TIMEOUT, MAX_SYN_ONLY, ... */
    clist open, syn, closed;
    cbuf out_data[2], out_index[2];  /* per side, the streams and index rows of finished connections */
    int record;    /* keep `packets` (a second walk, when a first one handed 4-tuples over) */
    int skip;      /* go on past a packet it cannot read, kept in `malformed` for the caller to check */
    cbuf malformed;  /* int64 (time ns, link type, data offset, data length, file offset) per such packet */
    cbuf dirty;    /* a byte per 4-tuple (by order of first packet): 1 when handed over to the pure path */
    cbuf packets;  /* int64 (4-tuple, packet number, time ns, link type, data offset, data length, file offset)
                    * per TCP packet, for the 4-tuples handed over */
    int has_now;
    const uint16_t *ports;
    Py_ssize_t n_ports;
    const char *why;
    int64_t why_at;
} cwalk;

typedef struct {
    uint8_t src[EP], dst[EP];
    uint32_t seq;
    int ack, syn, fin, rst, cut;
    Py_ssize_t data_at, data_len;
} cseg;

static int cw_bail(cwalk *w, const char *why, int64_t at)
{
    if (w->why == NULL) { w->why = why; w->why_at = at; }
    return -1;
}

/* ---- link -> IP -> TCP (tcp.py's segment_of): 1 a TCP segment, 0 no TCP (certainly), -1 not sure ---- */
static int cw_by_ethertype(int64_t ether_type, int *version)
{
    if (ether_type == ETHERTYPE_IPV4) { *version = 4; return 1; }
    if (ether_type == ETHERTYPE_IPV6) { *version = 6; return 1; }
    return 0;
}

static int cw_ip_of(const uint8_t *b, Py_ssize_t at, Py_ssize_t end, int64_t linktype, int *version,
                    Py_ssize_t *ip_at, Py_ssize_t *ip_end)
{
    if (linktype == LINK_ETHERNET) {
        cap_ethernet_frame_t e;
        if (cap_ethernet_frame(b, at, end, &e) < 0) return -1;
        int64_t ether_type = e.ether_type;
        Py_ssize_t body = e.body_at, stop = e.body_at + e.body_len;
        int kind = e.body_case;
        while (kind == CAP_T_ethernet_frame_vlan_tagged) {
            cap_ethernet_frame_vlan_tagged_t v;
            if (cap_ethernet_frame_vlan_tagged(b, body, stop, &v) < 0) return -1;
            ether_type = v.ether_type;
            body = v.body_at;
            stop = v.body_at + v.body_len;
            kind = v.body_case;
        }
        *ip_at = body; *ip_end = stop;
        return cw_by_ethertype(ether_type, version);
    }
    if (linktype == LINK_SLL) {
        cap_linux_sll_t h;
        if (cap_linux_sll(b, at, end, &h) < 0) return -1;
        *ip_at = h.payload_at; *ip_end = h.payload_at + h.payload_len;
        return cw_by_ethertype(h.protocol, version);
    }
    if (linktype == LINK_SLL2) {
        cap_linux_sll2_t h;
        if (cap_linux_sll2(b, at, end, &h) < 0) return -1;
        *ip_at = h.payload_at; *ip_end = h.payload_at + h.payload_len;
        return cw_by_ethertype(h.protocol, version);
    }
    if (linktype == LINK_NULL || linktype == LINK_LOOP) {
        cap_bsd_loopback_t h;
        int failed = 0;
        if (cap_bsd_loopback(b, at, end, &h) < 0) return -1;
        int64_t swapped = cap_bsd_loopback_family_swapped(b, &h, &failed);
        if (failed) return -1;
        int64_t family = linktype == LINK_LOOP ? swapped : h.family;
        if (linktype == LINK_NULL && family > 0xFFFF) family = swapped;
        *ip_at = h.payload_at; *ip_end = h.payload_at + h.payload_len;
        if (family == AF_INET_) { *version = 4; return 1; }
        for (size_t i = 0; i < sizeof AF_INET6_ / sizeof AF_INET6_[0]; i++)
            if (family == AF_INET6_[i]) { *version = 6; return 1; }
        return 0;
    }
    if (linktype == LINK_RAW || linktype == LINK_IPV4 || linktype == LINK_IPV6) {
        cap_raw_ip_t h;
        if (cap_raw_ip(b, at, end, &h) < 0) return -1;
        *ip_at = at; *ip_end = end;
        if (h.version == 4 || h.version == 6) { *version = (int)h.version; return 1; }
        return 0;
    }
    return 0;
}

static void cw_endpoint(uint8_t *ep, int version, const uint8_t *addr, int64_t port)
{
    memset(ep, 0, EP);
    ep[0] = (uint8_t)version;
    memcpy(ep + 1, addr, version == 4 ? 4 : 16);
    ep[17] = (uint8_t)(port >> 8);
    ep[18] = (uint8_t)port;
}

static int cw_segment_of(const uint8_t *b, Py_ssize_t at, Py_ssize_t end, int64_t linktype, cseg *s)
{
    int version = 0;
    Py_ssize_t ip_at = 0, ip_end = 0, rest_at, rest_len;
    int64_t length;
    int found = cw_ip_of(b, at, end, linktype, &version, &ip_at, &ip_end);
    if (found <= 0) return found;
    const uint8_t *src, *dst;
    if (version == 4) {
        cap_ipv4_packet_t ip;
        int failed = 0;
        if (cap_ipv4_packet(b, ip_at, ip_end, &ip) < 0) return -1;
        if (ip.protocol != IPPROTO_TCP_ || ip.more_fragments || ip.fragment_offset) return 0;
        length = cap_ipv4_packet_payload_length(b, &ip, &failed);
        if (failed) return -1;
        rest_at = ip.rest_at; rest_len = ip.rest_len;
        src = b + ip.src_addr_at; dst = b + ip.dst_addr_at;
    } else {
        cap_ipv6_packet_t ip;
        if (cap_ipv6_packet(b, ip_at, ip_end, &ip) < 0) return -1;
        if (ip.next_header != IPPROTO_TCP_) return 0;
        length = ip.payload_length;
        rest_at = ip.rest_at; rest_len = ip.rest_len;
        src = b + ip.src_addr_at; dst = b + ip.dst_addr_at;
    }
    if (length < 0) return -1;
    Py_ssize_t payload = rest_len < length ? rest_len : (Py_ssize_t)length;  /* rest[:length] */
    cap_tcp_segment_t t;
    if (cap_tcp_segment(b, rest_at, rest_at + payload, &t) < 0) return -1;
    int64_t on_wire = length - t.data_offset * 4;
    if (on_wire < 0) return -1;  /* the IP length ends inside the TCP header: malformed */
    Py_ssize_t kept = t.data_len < on_wire ? t.data_len : (Py_ssize_t)on_wire;
    s->cut = kept < on_wire;  /* the capture cut the data (snap length): a gap, the 4-tuple left to Python */
    cw_endpoint(s->src, version, src, t.src_port);
    cw_endpoint(s->dst, version, dst, t.dst_port);
    s->seq = (uint32_t)t.seq_num;
    s->ack = t.ack != 0; s->syn = t.syn != 0; s->fin = t.fin != 0; s->rst = t.rst != 0;
    s->data_at = t.data_at; s->data_len = kept;
    return 1;
}

/* ---- connections (CaptureDecoder._segment_items for in-order streams) ----
 * The tables mirror CaptureDecoder's: every step below is one of its steps, in the same order, so that
 * both free, expire and cap the same connections at the same packets. A 4-tuple forgotten and seen again
 * is a new 4-tuple (a new order): the pure path knows nothing of it either, so a 4-tuple handed over is
 * replayed from there. */
static uint64_t cw_hash(const uint8_t *key)
{
    uint64_t h = 1469598103934665603ULL;
    for (int i = 0; i < 2 * EP; i++) h = (h ^ key[i]) * 1099511628211ULL;
    return h;
}

static Py_ssize_t cw_slot(cwalk *w, const uint8_t *key)
{
    Py_ssize_t mask = w->slots - 1, i = (Py_ssize_t)(cw_hash(key) & (uint64_t)mask);
    while (w->slot_conn[i] >= 0 && memcmp(w->keys + i * 2 * EP, key, 2 * EP) != 0) i = (i + 1) & mask;
    return i;
}

static int cw_grow(cwalk *w)
{
    Py_ssize_t old = w->slots, slots = old ? old * 2 : 1024;
    uint8_t *keys = malloc((size_t)slots * 2 * EP), *old_keys = w->keys;
    int64_t *conn = malloc((size_t)slots * sizeof(int64_t)), *old_conn = w->slot_conn;
    if (keys == NULL || conn == NULL) { free(keys); free(conn); return 0; }
    for (Py_ssize_t i = 0; i < slots; i++) conn[i] = -1;
    w->keys = keys; w->slot_conn = conn; w->slots = slots;
    for (Py_ssize_t i = 0; i < old; i++) {
        if (old_conn[i] < 0) continue;
        Py_ssize_t j = cw_slot(w, old_keys + i * 2 * EP);
        memcpy(keys + j * 2 * EP, old_keys + i * 2 * EP, 2 * EP);
        conn[j] = old_conn[i];
    }
    free(old_keys); free(old_conn);
    return 1;
}

/* Empty slot i, shifting back the entries after it that may move (linear probing without tombstones). */
static void cw_unslot(cwalk *w, Py_ssize_t i)
{
    Py_ssize_t mask = w->slots - 1, j = i;
    w->slot_conn[i] = -1;
    w->used--;
    for (;;) {
        j = (j + 1) & mask;
        if (w->slot_conn[j] < 0) return;
        Py_ssize_t home = (Py_ssize_t)(cw_hash(w->keys + j * 2 * EP) & (uint64_t)mask);
        if (i <= j ? (home > i && home <= j) : (home > i || home <= j)) continue;  /* it cannot move to i */
        memcpy(w->keys + i * 2 * EP, w->keys + j * 2 * EP, 2 * EP);
        w->slot_conn[i] = w->slot_conn[j];
        w->slot_conn[j] = -1;
        i = j;
    }
}

static void cl_push(cwalk *w, clist *l, int k, int64_t i)
{
    w->conns[i].link[k][0] = l->tail;
    w->conns[i].link[k][1] = -1;
    if (l->tail >= 0) w->conns[l->tail].link[k][1] = i;
    else l->head = i;
    l->tail = i;
    l->count++;
}

static void cl_remove(cwalk *w, clist *l, int k, int64_t i)
{
    int64_t prev = w->conns[i].link[k][0], next = w->conns[i].link[k][1];
    if (prev >= 0) w->conns[prev].link[k][1] = next;
    else l->head = next;
    if (next >= 0) w->conns[next].link[k][0] = prev;
    else l->tail = prev;
    l->count--;
}

static int cw_server_port(const cwalk *w, const uint8_t *ep)
{
    int port = (ep[17] << 8) | ep[18];
    for (Py_ssize_t i = 0; i < w->n_ports; i++) if (w->ports[i] == port) return 1;
    return 0;
}

/* Hand a 4-tuple over to the pure path (all its connections, from its first packet): the walker goes on
 * with the others, and only records this one's packets and follows its connections' opening and closing. */
static int cw_hand_over(cwalk *w, const cconn *c)
{
    w->dirty.p[c->order] = 1;
    return 0;
}

/* A connection's streams and index rows into the walk's out buffers (its own freed): memory then holds
 * what the result needs, not a buffer per connection. A 4-tuple handed over keeps nothing. */
static int cw_compact(cwalk *w, cconn *c)
{
    int dirty = w->dirty.p[c->order];
    for (int d = 0; d < 2 && !c->moved; d++) {
        cside *side = &c->side[d];
        side->out_at = w->out_data[d].len;
        side->out_row = w->out_index[d].len;
        if (dirty) side->data.len = side->index.len = 0;
        else if (!cbuf_put(&w->out_data[d], side->data.p, side->data.len) ||
                 !cbuf_put(&w->out_index[d], side->index.p, side->index.len)) return -1;
        free(side->data.p); free(side->index.p);
        side->data.p = side->index.p = NULL;
        side->data.cap = side->index.cap = 0;
    }
    c->moved = 1;
    return 0;
}

static int cw_finish(cwalk *w, int64_t i, int64_t at)
{
    cconn *c = &w->conns[i];
    c->finish_at = at;
    for (int d = 0; d < 2; d++)
        if (c->side[d].has_fin && c->side[d].fin_at > c->side[d].offset) { cw_hand_over(w, c); break; }  /* a gap */
    return cw_compact(w, c) < 0 ? cw_bail(w, "out of memory", -1) : 0;
}

/* Forget a connection's 4-tuple (CaptureDecoder._forget, or a closed 4-tuple no longer remembered): its next
 * packet starts a new 4-tuple. Its rows stay; without a stream byte it has none, and its slot is reused. */
static void cw_forget(cwalk *w, int64_t i)
{
    cconn *c = &w->conns[i];
    uint8_t key[2 * EP];
    int client_first = memcmp(c->client, c->server, EP) <= 0;
    cl_remove(w, c->state == C_OPEN ? &w->open : &w->closed, 0, i);
    if (c->syn_only) cl_remove(w, &w->syn, 1, i);
    c->syn_only = 0;
    memcpy(key, client_first ? c->client : c->server, EP);
    memcpy(key + EP, client_first ? c->server : c->client, EP);
    cw_unslot(w, cw_slot(w, key));
    c->state = C_GONE;
    if (c->side[0].data.len == 0 && c->side[1].data.len == 0) {
        for (int d = 0; d < 2; d++) { free(c->side[d].data.p); free(c->side[d].index.p); }
        memset(c->side, 0, sizeof c->side);
        c->state = C_FREE;
        c->link[0][1] = w->free_conn;
        w->free_conn = i;
    }
}

/* CaptureDecoder._sweep: what is idle at the latest capture time, oldest first in each list. An open
 * connection past idle_timeout that has seen more than SYNs is the pure path's to finish (its rows then). */
static int cw_sweep(cwalk *w, int64_t file_offset)
{
    while (w->syn_ns >= 0 && w->syn.head >= 0 && w->now_ns - w->conns[w->syn.head].last_ns > w->syn_ns)
        cw_forget(w, w->syn.head);
    while (w->idle_ns >= 0 && w->open.head >= 0 && w->now_ns - w->conns[w->open.head].last_ns > w->idle_ns) {
        if (!w->conns[w->open.head].syn_only) return cw_bail(w, "a 4-tuple idle past idle_timeout", file_offset);
        cw_forget(w, w->open.head);
    }
    while (w->idle_ns >= 0 && w->closed.head >= 0 && w->now_ns - w->conns[w->closed.head].last_ns > w->idle_ns)
        cw_forget(w, w->closed.head);
    return 0;
}

/* CaptureDecoder._over_caps: past max_syn_only SYN-only or max_open open connections, the least recently
 * active is finished (at this packet) and forgotten. One handed over goes to the pure path whole: its replay
 * alone would never reach a cap. */
static int cw_caps(cwalk *w, int64_t number, int64_t file_offset)
{
    while (w->syn.count > w->max_syn) cw_forget(w, w->syn.head);
    while (w->open.count > w->max_open) {
        int64_t i = w->open.head;
        if (!w->conns[i].syn_only) {
            if (w->dirty.p[w->conns[i].order] || cw_finish(w, i, number) < 0 || w->dirty.p[w->conns[i].order])
                return cw_bail(w, "an open connection past max_open that the walker hands over", file_offset);
        }
        cw_forget(w, i);
    }
    return 0;
}

static int64_t cw_new_conn(cwalk *w)
{
    int64_t i = w->free_conn;
    if (i >= 0) {
        w->free_conn = w->conns[i].link[0][1];
        return i;
    }
    if (w->n_conns == w->cap_conns) {
        Py_ssize_t cap = w->cap_conns ? w->cap_conns * 2 : 64;
        cconn *conns = realloc(w->conns, (size_t)cap * sizeof(cconn));
        if (conns == NULL) return -1;
        w->conns = conns;
        w->cap_conns = cap;
    }
    return w->n_conns++;
}

/* The bytes of a segment into its side's stream, for a 4-tuple not handed over (hands it over at the first
 * thing the walker is not sure of). */
static int cw_data(cwalk *w, const uint8_t *b, const cseg *s, cconn *c, int64_t ts, int64_t file_offset,
                   int64_t number)
{
    if (s->cut) return cw_hand_over(w, c);
    cside *side = &c->side[memcmp(s->src, c->client, EP) == 0 ? 0 : 1];
    uint32_t seq = s->seq;
    if (s->syn) {
        if (side->has_next && side->next_seq != (uint32_t)(seq + 1u))
            return cw_hand_over(w, c);  /* a SYN that moves a stream's start */
        side->next_seq = seq + 1u;
        side->has_next = 1;
        seq = seq + 1u;
    }
    if (!side->has_next) { side->next_seq = seq; side->has_next = 1; }
    int64_t delta = (int64_t)(uint32_t)(seq - side->next_seq);
    int64_t start = side->offset + (delta >= (INT64_C(1) << 31) ? delta - (INT64_C(1) << 32) : delta);
    if (s->fin) { side->fin_at = start + s->data_len; side->has_fin = 1; }
    Py_ssize_t data_at = s->data_at, data_len = s->data_len;
    if (data_len > 0 && start > side->offset) return cw_hand_over(w, c);  /* out of order, or lost */
    if (data_len > 0 && start < side->offset) {
        /* Retransmitted (in part): the reassembler compares the bytes it still holds (the last `recent`
         * delivered) with the copy it kept and reports a difference (a conflict: handed over); equal bytes
         * are dropped, and what the segment carries past the stream's end is new data. */
        int64_t old = side->offset - start < data_len ? side->offset - start : data_len;
        int64_t kept_from = side->offset - (side->offset < w->recent ? side->offset : w->recent);
        int64_t lo = start > kept_from ? start : kept_from, hi = start + old;
        if (lo < hi && memcmp(side->data.p + lo, b + data_at + (lo - start), (size_t)(hi - lo)) != 0)
            return cw_hand_over(w, c);  /* retransmitted bytes that differ from the first copy: a conflict */
        data_at += (Py_ssize_t)old;
        data_len -= (Py_ssize_t)old;
    }
    if (data_len > 0) {
        int64_t entry[4] = {side->offset, number, ts, file_offset};
        if (!cbuf_put(&side->index, entry, sizeof entry) || !cbuf_put(&side->data, b + data_at, data_len))
            return cw_bail(w, "out of memory", file_offset);
        side->offset += data_len;
        side->next_seq += (uint32_t)data_len;
    }
    return 0;
}

static int cw_segment(cwalk *w, const uint8_t *b, const cseg *s, int64_t ts, int64_t file_offset, int64_t number,
                      int64_t *tuple)
{
    uint8_t key[2 * EP];
    int src_first = memcmp(s->src, s->dst, EP) <= 0;
    memcpy(key, src_first ? s->src : s->dst, EP);
    memcpy(key + EP, src_first ? s->dst : s->src, EP);
    if (cw_sweep(w, file_offset) < 0) return -1;
    if (2 * (w->used + 1) > w->slots && !cw_grow(w)) return cw_bail(w, "out of memory", file_offset);
    Py_ssize_t slot = cw_slot(w, key);
    int64_t i = w->slot_conn[slot], order = -1;
    int syns_only = s->syn && !s->fin && !s->rst && s->data_len == 0 && !s->cut;
    if (i >= 0 && w->conns[i].state == C_OPEN && w->idle_ns >= 0 && w->now_ns - w->conns[i].last_ns > w->idle_ns)
        return cw_bail(w, "a 4-tuple idle past idle_timeout", file_offset);
    if (i >= 0 && w->conns[i].state == C_CLOSED) {
        cconn *c = &w->conns[i];
        if (w->idle_ns >= 0 && ts - c->last_ns > w->idle_ns) {  /* forgotten: a new 4-tuple */
            cw_forget(w, i);
            slot = cw_slot(w, key);
        } else if (s->syn && !s->ack) {  /* a new connection on the same 4-tuple */
            order = c->order;
            cl_remove(w, &w->closed, 0, i);
            c->state = C_GONE;
            if (c->side[0].data.len == 0 && c->side[1].data.len == 0) {
                c->state = C_FREE;
                c->link[0][1] = w->free_conn;
                w->free_conn = i;
            }
        } else {  /* its last ACKs, or a retransmitted FIN: ignored */
            c->last_ns = ts;
            cl_remove(w, &w->closed, 0, i);
            cl_push(w, &w->closed, 0, i);
            *tuple = c->order;
            return 0;
        }
        i = -1;
    }
    if (i < 0) {
        if (order < 0) {  /* a 4-tuple not seen before (or forgotten since) */
            uint8_t clean = 0;
            if (!cbuf_put(&w->dirty, &clean, 1)) return cw_bail(w, "out of memory", file_offset);
            order = w->n_keys++;
            memcpy(w->keys + slot * 2 * EP, key, 2 * EP);
            w->used++;
        }
        i = cw_new_conn(w);
        if (i < 0) return cw_bail(w, "out of memory", file_offset);
        w->slot_conn[slot] = i;
        cconn *c = &w->conns[i];
        memset(c, 0, sizeof *c);
        const uint8_t *client;
        if (s->syn) client = s->ack ? s->dst : s->src;
        else if (cw_server_port(w, s->dst) != cw_server_port(w, s->src))
            client = cw_server_port(w, s->dst) ? s->src : s->dst;
        else client = (((s->src[17] << 8) | s->src[18]) > ((s->dst[17] << 8) | s->dst[18])) ? s->src : s->dst;
        memcpy(c->client, client, EP);
        memcpy(c->server, client == s->src ? s->dst : s->src, EP);
        c->first_offset = file_offset;
        c->last_ns = ts;
        c->finish_at = -1;
        c->order = order;
        c->number = w->n_opened++;
        c->state = C_OPEN;
        cl_push(w, &w->open, 0, i);
        if (syns_only) { c->syn_only = 1; cl_push(w, &w->syn, 1, i); }
    } else {
        cconn *c = &w->conns[i];
        c->last_ns = ts;
        cl_remove(w, &w->open, 0, i);
        cl_push(w, &w->open, 0, i);
        if (c->syn_only) {
            cl_remove(w, &w->syn, 1, i);
            if (syns_only) cl_push(w, &w->syn, 1, i);
            else c->syn_only = 0;
        }
    }
    cconn *c = &w->conns[i];
    *tuple = c->order;
    if (!w->dirty.p[c->order] && cw_data(w, b, s, c, ts, file_offset, number) < 0) return -1;
    cside *side = &c->side[memcmp(s->src, c->client, EP) == 0 ? 0 : 1];
    if (s->fin) side->closed = 1;
    if (s->rst) c->side[0].closed = c->side[1].closed = 1;
    if (c->side[0].closed && c->side[1].closed) {  /* freed at once; its 4-tuple remembered for its stray packets */
        if (cw_finish(w, i, number) < 0) return -1;
        cl_remove(w, &w->open, 0, i);
        if (c->syn_only) cl_remove(w, &w->syn, 1, i);
        c->syn_only = 0;
        c->state = C_CLOSED;
        cl_push(w, &w->closed, 0, i);
        if (w->closed.count > w->max_closed) cw_forget(w, w->closed.head);
    }
    return cw_caps(w, number, file_offset);
}

static int cw_packet(cwalk *w, const uint8_t *b, Py_ssize_t at, Py_ssize_t len, int64_t linktype, int64_t ts,
                     int64_t file_offset, int64_t number)
{
    cseg s;
    if (!w->has_now || ts > w->now_ns) { w->now_ns = ts; w->has_now = 1; }
    int found = cw_segment_of(b, at, at + len, linktype, &s);
    if (found < 0 && w->skip) {  /* the pure path drops a malformed packet (but in FAILFAST): the caller checks */
        int64_t record[5] = {ts, linktype, at, len, file_offset};
        return cbuf_put(&w->malformed, record, sizeof record) ? 0 : cw_bail(w, "out of memory", file_offset);
    }
    if (found < 0) return cw_bail(w, "a packet the walker cannot read with certainty (malformed or cut headers)",
                                  file_offset);
    if (found == 0) return 0;
    int64_t tuple = -1;
    if (cw_segment(w, b, &s, ts, file_offset, number, &tuple) < 0) return -1;
    int64_t record[7] = {tuple, number, ts, linktype, at, len, file_offset};
    if (w->record && !cbuf_put(&w->packets, record, sizeof record)) return cw_bail(w, "out of memory", file_offset);
    return 0;
}

/* ---- containers (container.py's PacketReader, for files without a break) ---- */
typedef struct { int64_t linktype, snaplen; int resolution; } ciface;

/* A pcapng time in if_tsresol units as ns (container.py's _to_ns); 0 when it does not fit int64. */
static int cw_to_ns(uint64_t ts, int resolution, int64_t *out)
{
    unsigned __int128 v;
    if (resolution & 0x80) {
        v = ((unsigned __int128)ts * 1000000000u) >> (resolution & 0x7F);
    } else if (resolution <= 9) {
        uint64_t mul = 1;
        for (int i = resolution; i < 9; i++) mul *= 10;
        v = (unsigned __int128)ts * mul;
    } else if (resolution - 9 >= 20) {
        v = 0;
    } else {
        uint64_t div = 1;
        for (int i = 9; i < resolution; i++) div *= 10;
        v = ts / div;
    }
    if (v > (unsigned __int128)INT64_MAX) return 0;
    *out = (int64_t)v;
    return 1;
}

static int cw_pcap(cwalk *w, const uint8_t *b, Py_ssize_t n, int64_t *packets)
{
    int64_t magic = ip_rd4be(b);
    int header_order = cap_pcap_header_order(magic), packet_order = cap_pcap_packet_order(magic);
    int nano = magic == CAP_PCAP_MAGIC_LE_NANO || magic == CAP_PCAP_MAGIC_BE_NANO;
    cap_pcap_header_t h;
    Py_ssize_t pos = header_order == 0 ? cap_pcap_header__le(b, 4, n, &h) : cap_pcap_header__be(b, 4, n, &h);
    if (pos < 0 || packet_order < 0) return cw_bail(w, "a pcap header the walker cannot read", 0);
    int64_t linktype = h.linktype & 0xFFFF;
    while (pos < n) {
        cap_pcap_packet_t p;
        Py_ssize_t next = packet_order == 0 ? cap_pcap_packet__le(b, pos, n, &p) : cap_pcap_packet__be(b, pos, n, &p);
        if (next < 0) return cw_bail(w, "a broken or cut pcap record", pos);
        int64_t ts = p.ts_sec * INT64_C(1000000000) + p.ts_frac * (nano ? 1 : 1000);
        if (cw_packet(w, b, p.data_at, p.data_len, linktype, ts, pos, (*packets)++) < 0) return -1;
        pos = next;
    }
    return 0;
}

static int cw_pcapng(cwalk *w, const uint8_t *b, Py_ssize_t n, int64_t *packets)
{
    Py_ssize_t pos = 0, n_if = 0, cap_if = 0;
    ciface *ifs = NULL;
    int64_t byte_order = -1;
    int rc = 0;
    uint8_t shb[4];
    for (int i = 0; i < 4; i++) shb[i] = (uint8_t)(CAP_PCAPNG_BLOCK_TYPE_SECTION_HEADER >> (24 - 8 * i));
    while (pos < n && rc == 0) {
        if (n - pos >= 4 && memcmp(b + pos, shb, 4) == 0) {
            cap_pcapng_section_header_block_t s;
            Py_ssize_t next = cap_pcapng_section_header_block(b, pos, n, &s);
            if (next < 0) { rc = cw_bail(w, "a pcapng section header the walker cannot read", pos); break; }
            byte_order = s.byte_order_magic;
            n_if = 0;
            pos = next;
            continue;
        }
        int order = cap_pcapng_block_order(byte_order);
        cap_pcapng_block_t k;
        Py_ssize_t next = order == 0 ? cap_pcapng_block__le(b, pos, n, &k) : order == 1 ? cap_pcapng_block__be(b, pos, n, &k) : -1;
        if (next < 0) { rc = cw_bail(w, "a broken or cut pcapng block", pos); break; }
        Py_ssize_t body = k.body_at, stop = k.body_at + k.body_len;
        if (k.body_case == CAP_T_pcapng_interface_description_block) {
            cap_pcapng_interface_description_block_t d;
            if ((order == 0 ? cap_pcapng_interface_description_block__le(b, body, stop, &d)
                            : cap_pcapng_interface_description_block__be(b, body, stop, &d)) < 0) {
                rc = cw_bail(w, "a broken interface description block", pos); break;
            }
            int resolution = 6;
            Py_ssize_t at = d.options_at, end = d.options_at + d.options_len;
            while (at < end) {
                cap_pcapng_option_t o;
                at = order == 0 ? cap_pcapng_option__le(b, at, end, &o) : cap_pcapng_option__be(b, at, end, &o);
                if (at < 0) break;
                if (o.code == 9 && o.value_len > 0) { resolution = b[o.value_at]; break; }
            }
            if (n_if == cap_if) {
                Py_ssize_t cap = cap_if ? cap_if * 2 : 8;
                ciface *grown = realloc(ifs, (size_t)cap * sizeof(ciface));
                if (grown == NULL) { rc = cw_bail(w, "out of memory", pos); break; }
                ifs = grown; cap_if = cap;
            }
            ifs[n_if].linktype = d.linktype;
            ifs[n_if].snaplen = d.snaplen;
            ifs[n_if].resolution = resolution;
            n_if++;
        } else if (k.body_case == CAP_T_pcapng_enhanced_packet_block) {
            cap_pcapng_enhanced_packet_block_t e;
            int64_t ts;
            if ((order == 0 ? cap_pcapng_enhanced_packet_block__le(b, body, stop, &e)
                            : cap_pcapng_enhanced_packet_block__be(b, body, stop, &e)) < 0) {
                rc = cw_bail(w, "a broken enhanced packet block", pos); break;
            }
            if (e.interface_id >= n_if) { rc = cw_bail(w, "a packet of an undescribed interface", pos); break; }
            ciface *f = &ifs[e.interface_id];
            if (!cw_to_ns((uint64_t)e.timestamp_high << 32 | (uint64_t)e.timestamp_low, f->resolution, &ts)) {
                rc = cw_bail(w, "a pcapng time past int64 nanoseconds", pos); break;
            }
            rc = cw_packet(w, b, e.packet_data_at, e.packet_data_len, f->linktype, ts, pos, (*packets)++);
        } else if (k.body_case == CAP_T_pcapng_simple_packet_block) {
            cap_pcapng_simple_packet_block_t p;
            if ((order == 0 ? cap_pcapng_simple_packet_block__le(b, body, stop, &p)
                            : cap_pcapng_simple_packet_block__be(b, body, stop, &p)) < 0) {
                rc = cw_bail(w, "a broken simple packet block", pos); break;
            }
            if (n_if == 0) { rc = cw_bail(w, "a packet of an undescribed interface", pos); break; }
            int64_t kept = p.original_packet_length;
            if (ifs[0].snaplen && ifs[0].snaplen < kept) kept = ifs[0].snaplen;
            Py_ssize_t len = p.packet_data_len < kept ? p.packet_data_len : (Py_ssize_t)kept;
            rc = cw_packet(w, b, p.packet_data_at, len, ifs[0].linktype, 0, pos, (*packets)++);
        }
        pos = next;
    }
    free(ifs);
    return rc;
}

/* ---- the module ---- */
static void cw_free(cwalk *w)
{
    for (Py_ssize_t i = 0; i < w->n_conns; i++)
        for (int d = 0; d < 2; d++) { free(w->conns[i].side[d].data.p); free(w->conns[i].side[d].index.p); }
    for (int d = 0; d < 2; d++) { free(w->out_data[d].p); free(w->out_index[d].p); }
    free(w->conns); free(w->keys); free(w->slot_conn); free(w->dirty.p); free(w->packets.p); free(w->malformed.p);
}

/* The result: (packets, connections, endpoints, request bytes, request index, response bytes, response index,
 * handed over, replay, malformed, flow numbers). handed over: a byte per 4-tuple (by order of first packet), 1 for those
 * the pure path must replay (their connections have no streams here); replay, when walk was asked to record: their TCP
 * packets, int64 (4-tuple, packet number, time ns, link type, data offset, data length, file offset) each,
 * in capture order (a second walk gives them, only when the first handed a 4-tuple over); malformed, when walk
 * was asked to skip them: the packets it could not read, int64 (time ns, link type, data offset, data length,
 * file offset) each.
 * connections: int64 (first packet offset, finishing packet number or -1, 4-tuple order, request length,
 * response length) per connection with a stream byte and not handed over (the others give no row);
 * endpoints: client and server (EP bytes each) per such connection; each side's
 * streams are concatenated in connection order, and its index rows (int64: offset in that concatenation,
 * packet number, time ns, file offset) follow the same order; flow numbers: int64 per such connection, how
 * many connections were opened before it (CaptureDecoder's Flow.number, every connection counted). */
static PyObject *cw_result(cwalk *w, int64_t n_packets)
{
    Py_ssize_t n = 0, size[2] = {0, 0}, rows[2] = {0, 0};
    for (Py_ssize_t i = 0; i < w->n_conns; i++) {
        cconn *c = &w->conns[i];
        if (!c->moved || w->dirty.p[c->order] || c->side[0].data.len + c->side[1].data.len == 0) continue;
        n++;  /* a connection with rows: not replayed by the pure path, not without a stream byte */
        for (int d = 0; d < 2; d++) { size[d] += c->side[d].data.len; rows[d] += c->side[d].index.len; }
    }
    Py_ssize_t replayed = 0;
    const int64_t *record = (const int64_t *)w->packets.p;
    Py_ssize_t records = w->packets.len / (Py_ssize_t)(7 * sizeof(int64_t));
    for (Py_ssize_t k = 0; k < records; k++) replayed += w->dirty.p[record[7 * k]];
    PyObject *dirty = PyBytes_FromStringAndSize((const char *)w->dirty.p, w->dirty.len);
    PyObject *malformed = PyBytes_FromStringAndSize((const char *)w->malformed.p, w->malformed.len);
    if (malformed == NULL) { Py_XDECREF(dirty); return NULL; }
    PyObject *packets = PyBytes_FromStringAndSize(NULL, replayed * 7 * (Py_ssize_t)sizeof(int64_t));
    if (dirty == NULL || packets == NULL) {
        Py_XDECREF(dirty); Py_XDECREF(packets); Py_DECREF(malformed);
        return NULL;
    }
    int64_t *kept = (int64_t *)PyBytes_AS_STRING(packets);
    for (Py_ssize_t k = 0; k < records; k++)
        if (w->dirty.p[record[7 * k]]) { memcpy(kept, record + 7 * k, 7 * sizeof(int64_t)); kept += 7; }
    PyObject *conns = PyBytes_FromStringAndSize(NULL, n * 5 * (Py_ssize_t)sizeof(int64_t));
    PyObject *ends = PyBytes_FromStringAndSize(NULL, n * 2 * EP);
    PyObject *numbers = PyBytes_FromStringAndSize(NULL, n * (Py_ssize_t)sizeof(int64_t));
    PyObject *data[2] = {PyBytes_FromStringAndSize(NULL, size[0]), PyBytes_FromStringAndSize(NULL, size[1])};
    PyObject *index[2] = {PyBytes_FromStringAndSize(NULL, rows[0]), PyBytes_FromStringAndSize(NULL, rows[1])};
    if (conns == NULL || ends == NULL || numbers == NULL || data[0] == NULL || data[1] == NULL || index[0] == NULL
        || index[1] == NULL) {
        Py_XDECREF(conns); Py_XDECREF(ends); Py_XDECREF(numbers); Py_DECREF(dirty); Py_DECREF(packets);
        Py_DECREF(malformed);
        for (int d = 0; d < 2; d++) { Py_XDECREF(data[d]); Py_XDECREF(index[d]); }
        return NULL;
    }
    int64_t *row = (int64_t *)PyBytes_AS_STRING(conns), *number = (int64_t *)PyBytes_AS_STRING(numbers);
    uint8_t *ep = (uint8_t *)PyBytes_AS_STRING(ends);
    Py_ssize_t at[2] = {0, 0}, entries[2] = {0, 0}, j = 0;
    for (Py_ssize_t i = 0; i < w->n_conns; i++) {
        cconn *c = &w->conns[i];
        if (!c->moved || w->dirty.p[c->order] || c->side[0].data.len + c->side[1].data.len == 0) continue;
        row[5 * j] = c->first_offset;
        row[5 * j + 1] = c->finish_at;
        row[5 * j + 2] = c->order;
        number[j] = c->number;
        memcpy(ep + 2 * EP * j, c->client, EP);
        memcpy(ep + 2 * EP * j + EP, c->server, EP);
        for (int d = 0; d < 2; d++) {
            cside *side = &c->side[d];
            row[5 * j + 3 + d] = side->data.len;
            if (side->data.len)
                memcpy(PyBytes_AS_STRING(data[d]) + at[d], w->out_data[d].p + side->out_at, (size_t)side->data.len);
            int64_t *out = (int64_t *)PyBytes_AS_STRING(index[d]) + 4 * entries[d];
            const int64_t *in = (const int64_t *)(w->out_index[d].p + side->out_row);
            Py_ssize_t count = side->index.len / (Py_ssize_t)(4 * sizeof(int64_t));
            for (Py_ssize_t k = 0; k < count; k++) {
                out[4 * k] = in[4 * k] + at[d];
                out[4 * k + 1] = in[4 * k + 1];
                out[4 * k + 2] = in[4 * k + 2];
                out[4 * k + 3] = in[4 * k + 3];
            }
            entries[d] += count;
            at[d] += side->data.len;
        }
        j++;
    }
    return Py_BuildValue("(LNNNNNNNNNN)", (long long)n_packets, conns, ends, data[0], index[0], data[1], index[1], dirty,
                         packets, malformed, numbers);
}

static PyObject *walk(PyObject *self, PyObject *args)
{
    Py_buffer data, ports;
    long long idle_ns, recent, syn_ns = -1, max_syn = INT64_MAX, max_open = INT64_MAX, max_closed = INT64_MAX;
    int record = 0, skip = 0;
    (void)self;
    if (!PyArg_ParseTuple(args, "y*y*LL|ppLLLL", &data, &ports, &idle_ns, &recent, &record, &skip, &syn_ns, &max_syn,
                          &max_open, &max_closed)) return NULL;
    if (max_syn < 1 || max_open < 1 || max_closed < 1) {
        PyBuffer_Release(&data);
        PyBuffer_Release(&ports);
        PyErr_SetString(PyExc_ValueError, "max_syn_only, max_open and max_closed must be at least 1");
        return NULL;
    }
    cwalk w;
    memset(&w, 0, sizeof w);
    w.idle_ns = idle_ns;
    w.syn_ns = syn_ns;
    w.max_syn = max_syn;
    w.max_open = max_open;
    w.max_closed = max_closed;
    w.free_conn = w.open.head = w.open.tail = w.syn.head = w.syn.tail = w.closed.head = w.closed.tail = -1;
    w.recent = recent;
    w.record = record;
    w.skip = skip;
    w.ports = ports.buf;
    w.n_ports = ports.len / (Py_ssize_t)sizeof(uint16_t);
    const uint8_t *b = data.buf;
    Py_ssize_t n = data.len;
    int64_t packets = 0;
    int rc = 0;
    Py_BEGIN_ALLOW_THREADS
    if (n == 0) rc = 0;
    else if (n < 4) rc = cw_bail(&w, "a file too short for a magic number", 0);
    else if (cap_pcap_header_order(ip_rd4be(b)) >= 0) rc = cw_pcap(&w, b, n, &packets);
    else if (ip_rd4be(b) == (uint32_t)CAP_PCAPNG_BLOCK_TYPE_SECTION_HEADER) rc = cw_pcapng(&w, b, n, &packets);
    else rc = cw_bail(&w, "not a pcap or pcapng file", 0);
    for (int64_t i = w.open.head; rc == 0 && i >= 0; i = w.conns[i].link[0][1]) {  /* the end of the capture */
        cconn *c = &w.conns[i];
        if (w.idle_ns >= 0 && w.now_ns - c->last_ns > w.idle_ns && !c->syn_only)
            rc = cw_bail(&w, "a 4-tuple idle past idle_timeout", -1);
        else if (!w.dirty.p[c->order]) rc = cw_finish(&w, i, -1);
    }
    Py_END_ALLOW_THREADS
    PyObject *out;
    if (rc != 0) out = Py_BuildValue("(OsL)", Py_None, w.why ? w.why : "unknown", (long long)w.why_at);
    else out = cw_result(&w, packets);
    cw_free(&w);
    PyBuffer_Release(&data);
    PyBuffer_Release(&ports);
    return out;
}

static PyMethodDef cw_methods[] = {
    {"walk", walk, METH_VARARGS,
     "walk(buffer, server_ports (uint16 array bytes), idle_ns or -1, recent, record=False, skip=False, syn_ns=-1, "
     "max_syn_only, max_open, max_closed) -> (packets, connections, endpoints, "
     "request bytes, request index, response bytes, response index) or (None, reason, file offset); see cw_result. "
     "An endpoint is the IP version, 16 address bytes (IPv4 in the first 4), the big-endian port."},
    {NULL, NULL, 0, NULL}
};

static struct PyModuleDef cw_module = {PyModuleDef_HEAD_INIT, "inlong_proto._compiled.capture",
    "Generated compiled capture walker (tools/ksygen/cgen_capture.py).", -1, cw_methods, NULL, NULL, NULL, NULL};

PyObject *ipc_capture_module(void)
{
    PyObject *m = PyModule_Create(&cw_module);
    if (m == NULL) return NULL;
    if (PyModule_AddStringConstant(m, "DISPATCH", DISPATCH) < 0) { Py_DECREF(m); return NULL; }
    return m;
}
