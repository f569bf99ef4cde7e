/*
 * The official HdrHistogram (Java) side of latlab's interop test, run by
 * tests/test_hist_interop.c as
 *   java -cp hdrhistogram.jar Interop.java gen DIR     write reference files
 *   java -cp hdrhistogram.jar Interop.java check DIR   read latlab's files
 *
 * gen writes, per case NAME listed in DIR/cases.txt:
 *   NAME.conf    "L H d"          NAME.values  "value count" per record
 *   NAME.b64     compressed V2    NAME.plain.b64  uncompressed V2
 *   NAME.sum     summary (below)  NAME.hgrm / NAME.ms.hgrm  ratio 1 / 1e6
 * and java.hlog (HistogramLogWriter, tagged intervals) with java.hlog.sum.
 * check reads NAME.lat.b64 and NAME.lat.plain.b64 (latlab's encodings of
 * the same values) into NAME.lat.sum and NAME.lat.plain.sum, and latlab's
 * lat.hlog (HistogramLogReader) into lat.hlog.sum.
 *
 * A summary is exact text: config, total, min, min non-zero, max, value at
 * 12 percentiles, mean and stddev (Double.toString), then every recorded
 * slot (highest equivalent value, count).
 */
import java.io.*;
import java.nio.ByteBuffer;
import java.nio.file.*;
import java.util.*;
import org.HdrHistogram.*;

public class Interop {
	static final double[] PCTS = { 0, 1, 10, 25, 50, 75, 90, 99, 99.9,
				       99.99, 99.999, 100 };
	static long seed;

	static long next() {
		seed = seed * 6364136223846793005L + 1442695040888963407L;
		return seed;
	}

	/* Values spread over [1, max]: a random top bit, random bits below. */
	static long wide(long max) {
		long x = next();
		int shift = (int) ((x >>> 58) % 62);
		return ((x >>> 1) >>> (shift + 1)) % max + 1;
	}

	static String summary(AbstractHistogram h) {
		StringBuilder s = new StringBuilder();
		s.append("config ").append(h.getLowestDiscernibleValue())
			.append(' ').append(h.getHighestTrackableValue())
			.append(' ').append(h.getNumberOfSignificantValueDigits())
			.append('\n');
		s.append("total ").append(h.getTotalCount()).append('\n');
		s.append("min ").append(h.getMinValue()).append('\n');
		s.append("minnz ").append(h.getMinNonZeroValue()).append('\n');
		s.append("max ").append(h.getMaxValue()).append('\n');
		for (double p : PCTS)
			s.append("p ").append(p).append(' ')
				.append(h.getValueAtPercentile(p)).append('\n');
		s.append("mean ").append(h.getMean()).append('\n');
		s.append("stddev ").append(h.getStdDeviation()).append('\n');
		for (HistogramIterationValue v : h.recordedValues())
			s.append("slot ").append(v.getValueIteratedTo()).append(' ')
				.append(v.getCountAtValueIteratedTo()).append('\n');
		return s.toString();
	}

	static void write(Path p, String text) throws IOException {
		Files.write(p, text.getBytes("US-ASCII"));
	}

	static String hgrm(AbstractHistogram h, double ratio) {
		ByteArrayOutputStream out = new ByteArrayOutputStream();
		PrintStream ps = new PrintStream(out);
		h.outputPercentileDistribution(ps, 5, ratio);
		ps.flush();
		return out.toString();
	}

	static String b64(AbstractHistogram h, boolean compressed) {
		ByteBuffer buf = ByteBuffer.allocate(h.getNeededByteBufferCapacity());
		int n = compressed ? h.encodeIntoCompressedByteBuffer(buf)
				   : h.encodeIntoByteBuffer(buf);
		return Base64.getEncoder().encodeToString(
			Arrays.copyOf(buf.array(), n));
	}

	/* Record into h and log what was recorded, so C replays it exactly. */
	static void rec(Histogram h, StringBuilder log, long v, long count) {
		try {
			h.recordValueWithCount(v, count);
			log.append(v).append(' ').append(count).append('\n');
		} catch (ArrayIndexOutOfBoundsException e) {
			/* beyond the array: Java refuses, so do not replay */
		}
	}

	static Histogram makeCase(String name, StringBuilder log) {
		String[] f = name.split("_");
		int d = Integer.parseInt(f[0].substring(1));
		String kind = f[1];
		seed = name.hashCode();
		long top = 1L << 62;
		if (kind.equals("empty"))
			return new Histogram(1, 3600000000000L, d);
		if (kind.equals("wide")) {
			Histogram h = new Histogram(1, top, d);
			rec(h, log, 1, 1);
			rec(h, log, top, 1);
			for (int i = 0; i < 3000; i++)
				rec(h, log, wide(top), (next() >>> 60) + 1);
			return h;
		}
		if (kind.equals("outliers")) {
			Histogram h = new Histogram(1, top, d);
			for (int i = 0; i < 20000; i++)
				rec(h, log, 800 + (next() >>> 1) % 4000, 1 + (next() >>> 62));
			rec(h, log, 3600000000000L, 1);  /* one hour */
			rec(h, log, 1000000000000000L, 2);
			rec(h, log, top - 1, 1);
			return h;
		}
		if (kind.equals("L1000")) {
			/* unit magnitude 9, and values above H inside the array */
			Histogram h = new Histogram(1000, 3600000000000L, d);
			for (int i = 0; i < 3000; i++)
				rec(h, log, wide(3600000000000L), 1);
			rec(h, log, 3600000000001L, 3);
			rec(h, log, 3600000000000L * 2, 1);
			rec(h, log, 1L << 61, 1);
			return h;
		}
		if (kind.equals("counts")) {
			Histogram h = new Histogram(1, 1000000000L, d);
			rec(h, log, 1, 1L << 40);
			rec(h, log, 999, (1L << 50) + 12345);
			rec(h, log, 1000000000L, 7);
			return h;
		}
		if (kind.equals("small")) {
			Histogram h = new Histogram(1, 1000, d);
			for (int i = 0; i < 200; i++)
				rec(h, log, 1 + (next() >>> 1) % 1000, 1);
			return h;
		}
		throw new IllegalArgumentException(name);
	}

	static final String[] CASES = { "d0_small", "d1_wide", "d3_wide",
		"d5_wide", "d1_empty", "d3_empty", "d5_empty", "d1_outliers",
		"d3_outliers", "d5_outliers", "d3_L1000", "d2_counts",
		"d3_small" };

	static void gen(Path dir) throws Exception {
		StringBuilder names = new StringBuilder();
		for (String name : CASES) {
			StringBuilder log = new StringBuilder();
			Histogram h = makeCase(name, log);
			names.append(name).append('\n');
			write(dir.resolve(name + ".conf"), h.getLowestDiscernibleValue()
			      + " " + h.getHighestTrackableValue() + " "
			      + h.getNumberOfSignificantValueDigits() + "\n");
			write(dir.resolve(name + ".values"), log.toString());
			write(dir.resolve(name + ".b64"), b64(h, true) + "\n");
			write(dir.resolve(name + ".plain.b64"), b64(h, false) + "\n");
			write(dir.resolve(name + ".sum"), summary(h));
			write(dir.resolve(name + ".hgrm"), hgrm(h, 1.0));
			write(dir.resolve(name + ".ms.hgrm"), hgrm(h, 1e6));
		}
		write(dir.resolve("cases.txt"), names.toString());
		genLog(dir);
	}

	/* Tagged and untagged intervals, relative stamps with a BaseTime. */
	static void genLog(Path dir) throws Exception {
		long startMs = 1700000000123L;
		HistogramLogWriter w = new HistogramLogWriter(
			dir.resolve("java.hlog").toFile());
		StringBuilder sum = new StringBuilder();
		w.outputComment("[Logged with the interop test]");
		w.outputLogFormatVersion();
		w.outputStartTime(startMs);
		w.outputBaseTime(startMs);
		w.outputLegend();
		seed = 99;
		String[] tags = { null, "e2e", "q1" };
		for (int i = 0; i < 6; i++) {
			Histogram h = new Histogram(1, 3600000000000L, 3);
			for (int k = 0; k < 500 * (i + 1); k++)
				h.recordValue(wide(100000000L * (i + 1)));
			String tag = tags[i % 3];
			h.setTag(tag);
			w.outputIntervalHistogram(i * 0.5, i * 0.5 + 1.0, h, 1e6);
			long s = startMs + i * 500;
			sum.append("interval ").append(tag == null ? "-" : tag)
				.append(' ').append(s).append(' ').append(s + 1000)
				.append('\n').append(summary(h));
		}
		w.close();
		write(dir.resolve("java.hlog.sum"), sum.toString());
	}

	static String readTrim(Path p) throws IOException {
		return new String(Files.readAllBytes(p), "US-ASCII").trim();
	}

	static void check(Path dir) throws Exception {
		for (String name : readTrim(dir.resolve("cases.txt")).split("\n")) {
			byte[] c = Base64.getDecoder().decode(
				readTrim(dir.resolve(name + ".lat.b64")));
			Histogram h = Histogram.decodeFromCompressedByteBuffer(
				ByteBuffer.wrap(c), 0);
			write(dir.resolve(name + ".lat.sum"), summary(h));
			byte[] p = Base64.getDecoder().decode(
				readTrim(dir.resolve(name + ".lat.plain.b64")));
			h = Histogram.decodeFromByteBuffer(ByteBuffer.wrap(p), 0);
			write(dir.resolve(name + ".lat.plain.sum"), summary(h));
		}
		HistogramLogReader r = new HistogramLogReader(
			dir.resolve("lat.hlog").toFile());
		StringBuilder sum = new StringBuilder();
		EncodableHistogram e;
		while ((e = r.nextIntervalHistogram()) != null) {
			Histogram h = (Histogram) e;
			sum.append("interval ")
				.append(h.getTag() == null ? "-" : h.getTag())
				.append(' ').append(h.getStartTimeStamp()).append(' ')
				.append(h.getEndTimeStamp()).append('\n')
				.append(summary(h));
		}
		r.close();
		write(dir.resolve("lat.hlog.sum"), sum.toString());
	}

	public static void main(String[] args) throws Exception {
		Path dir = Paths.get(args[1]);
		if (args[0].equals("gen"))
			gen(dir);
		else
			check(dir);
	}
}
