import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.nio.file.*;
import java.util.*;

// Reads hex frames (one per line: name hex) and, with Java's ByteBuffer and UTF-8 as EventMeshFrame uses them,
// decodes each (magic/version checked, lengths read as upstream reads them) into a LinkedHashMap, then encodes
// the map back; prints name, OK/re-encoded-equal or the exception.
public class EventMeshFrameCheck {
    static String hex(byte[] b) { StringBuilder s = new StringBuilder(); for (byte x : b) s.append(String.format("%02x", x)); return s.toString(); }
    static byte[] unhex(String s) { byte[] b = new byte[s.length() / 2]; for (int i = 0; i < b.length; i++) b[i] = (byte) Integer.parseInt(s.substring(2 * i, 2 * i + 2), 16); return b; }
    public static void main(String[] a) throws Exception {
        for (String line : Files.readAllLines(Paths.get(a[0]))) {
            String[] p = line.split(" ");
            byte[] bytes = unhex(p.length > 1 ? p[1] : "");
            try {
                if (bytes.length < 14) throw new IllegalArgumentException("frame too short: " + bytes.length);
                ByteBuffer buf = ByteBuffer.wrap(bytes);
                int magic = buf.get() & 0xFF; if (magic != 0xEF) throw new IllegalArgumentException("bad frame magic");
                int ver = buf.get() & 0xFF; if (ver != 1) throw new IllegalArgumentException("unsupported frame version");
                int msgType = buf.get() & 0xFF; int flags = buf.get() & 0xFF; int seq = buf.getInt();
                int keyCount = buf.getShort() & 0xFFFF; int dataLen = buf.getInt();
                Map<String, String> attrs = new LinkedHashMap<>(keyCount);
                for (int i = 0; i < keyCount; i++) {
                    byte[] n = new byte[buf.getShort() & 0xFFFF]; buf.get(n);
                    byte[] v = new byte[buf.getInt()]; buf.get(v);
                    attrs.put(new String(n, StandardCharsets.UTF_8), new String(v, StandardCharsets.UTF_8));
                }
                byte[] data = new byte[dataLen]; buf.get(data);
                // encode the map back as EventMeshFrame.encode does
                int kv = 0; List<byte[]> ns = new ArrayList<>(), vs = new ArrayList<>();
                for (Map.Entry<String, String> e : attrs.entrySet()) {
                    byte[] n = e.getKey().getBytes(StandardCharsets.UTF_8), v = e.getValue().getBytes(StandardCharsets.UTF_8);
                    ns.add(n); vs.add(v); kv += 2 + n.length + 4 + v.length;
                }
                ByteBuffer out = ByteBuffer.allocate(14 + kv + data.length);
                out.put((byte) 0xEF).put((byte) 1).put((byte) msgType).put((byte) flags).putInt(seq)
                   .putShort((short) attrs.size()).putInt(data.length);
                for (int j = 0; j < ns.size(); j++) { out.putShort((short) ns.get(j).length).put(ns.get(j)).putInt(vs.get(j).length).put(vs.get(j)); }
                out.put(data);
                String again = hex(out.array());
                System.out.println(p[0] + " DECODED type=" + msgType + " flags=" + flags + " seq=" + seq + " attrs=" + attrs.keySet()
                    + " rest=" + buf.remaining() + (again.equals(p[1]) ? " REENCODED-EQUAL" : " REENCODED-DIFFERENT"));
            } catch (Exception e) {
                System.out.println(p[0] + " THROWS " + e.getClass().getSimpleName() + ": " + e.getMessage());
            }
        }
    }
}
