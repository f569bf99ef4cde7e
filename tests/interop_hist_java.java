/*
 * Differential check of lat_hist against the official HdrHistogram Java
 * library (run by tests/interop_hist_java.sh with the Debian jar on the
 * class path, as a single-file source program).
 *
 *   java -cp HdrHistogram.jar interop_hist_java.java INPUT EXPECTED
 *
 * Writes the recording cases to INPUT (the C side replays them through
 * `test_hist --dump`) and Java's answers to EXPECTED, in the same text
 * format: percentiles, min/max, mean/stddev as raw double bits, and every
 * iterator's steps. Line format of INPUT:
 *   hist L H d interval L2 H2 d2     (a case; L2.. is the add() target)
 *   v count                          (count 1 with interval > 0)
 *   end
 */
import java.io.PrintStream;
import java.util.Random;
import org.HdrHistogram.Histogram;
import org.HdrHistogram.HistogramIterationValue;

public class interop_hist_java {
	static final double[] PS = { 0, 0.1, 1, 10, 25, 100.0 / 3, 40, 50,
		66.67, 75, 90, 99, 99.9, 99.99, 99.999, 100, 150, -1 };

	static PrintStream in, out;

	static void emit(String name, long lo, long hi, int d, long interval,
			 long lo2, long hi2, int d2, long[] vals, long[] cnts) {
		Histogram h = new Histogram(lo, hi, d);
		in.printf("hist %d %d %d %d %d %d %d%n", lo, hi, d, interval,
			  lo2, hi2, d2);
		for (int i = 0; i < vals.length; i++) {
			in.printf("%d %d%n", vals[i], cnts[i]);
			if (interval > 0)
				h.recordValueWithExpectedInterval(vals[i], interval);
			else
				h.recordValueWithCount(vals[i], cnts[i]);
		}
		in.println("end");
		dump(h);
		Histogram t = new Histogram(lo2, hi2, d2);
		t.add(h);
		t.add(h);
		out.println("add");
		dump(t);
	}

	static String bits(double d) {
		return Long.toHexString(Double.doubleToRawLongBits(d));
	}

	static void dump(Histogram h) {
		out.printf("total %d min %d max %d minnz %d%n", h.getTotalCount(),
			   h.getMinValue(), h.getMaxValue(),
			   h.getMinNonZeroValue());
		out.printf("mean %s stddev %s%n", bits(h.getMean()),
			   bits(h.getStdDeviation()));
		for (double p : PS)
			out.printf("p %s %d%n", bits(p), h.getValueAtPercentile(p));
		for (HistogramIterationValue v : h.percentiles(5))
			out.printf("pi %d %s %d%n", v.getValueIteratedTo(),
				   bits(v.getPercentileLevelIteratedTo()),
				   v.getTotalCountToThisValue());
		for (HistogramIterationValue v : h.recordedValues())
			out.printf("ri %d %d %d%n", v.getValueIteratedTo(),
				   v.getCountAtValueIteratedTo(),
				   v.getValueIteratedFrom());
		long step = h.getMaxValue() / 7 + 1;
		for (HistogramIterationValue v : h.linearBucketValues(step))
			out.printf("li %d %d %s%n", v.getValueIteratedTo(),
				   v.getCountAddedInThisIterationStep(),
				   bits(v.getPercentile()));
		for (HistogramIterationValue v :
		     h.logarithmicBucketValues(1000, 1.7))
			out.printf("gi %d %d%n", v.getValueIteratedTo(),
				   v.getCountAddedInThisIterationStep());
		long rows = 0, hash = 0;
		for (HistogramIterationValue v : h.allValues()) {
			rows++;
			hash = hash * 31 + v.getValueIteratedTo();
			hash = hash * 31 + v.getCountAtValueIteratedTo();
		}
		out.printf("all %d %d%n", rows, hash);
	}

	static long lognormal(Random r, double median, double sigma) {
		return (long) Math.exp(Math.log(median) + sigma * r.nextGaussian());
	}

	public static void main(String[] args) throws Exception {
		in = new PrintStream(args[0], "US-ASCII");
		out = new PrintStream(args[1], "US-ASCII");
		Random r = new Random(42);
		long hour = 3600000000000L, max = Long.MAX_VALUE;
		int[] digits = { 0, 1, 2, 3, 4, 5 };
		long[] lows = { 1, 1000, 1024, 7 };

		for (int d : digits) {
			for (long lo : lows) {
				int n = d == 5 ? 500 : 3000;
				long[] v = new long[n], c = new long[n];
				for (int i = 0; i < n; i++) {
					v[i] = Math.min(lognormal(r, 50000, 1.5), hour);
					c[i] = 1 + r.nextInt(3);
				}
				emit("lognormal", lo, hour, d, 0, 1, hour * 2,
				     (d + 2) % 6, v, c);
			}
		}
		/* Values from 1 to 2^62, and a few huge outliers. */
		for (int d : new int[] { 1, 3, 5 }) {
			long[] v = new long[200], c = new long[200];
			for (int i = 0; i < 200; i++) {
				v[i] = i < 63 ? (1L << Math.min(i, 62)) - (i % 3) :
					lognormal(r, 1000, 0.3);
				if (v[i] < 0)
					v[i] = 0;
				c[i] = 1;
			}
			v[199] = 1L << 62;
			emit("wide", 1, max, d, 0, 1000, max, 2, v, c);
			long[] o = new long[1003], oc = new long[1003];
			for (int i = 0; i < 1000; i++) {
				o[i] = 1000 + r.nextInt(1000);
				oc[i] = 1;
			}
			o[1000] = 1L << 61;
			o[1001] = (1L << 62) - 1;
			o[1002] = 5000000000000000000L;
			oc[1000] = oc[1001] = oc[1002] = 1;
			emit("outliers", 1, max, d, 0, 1, max, 3, o, oc);
		}
		emit("empty", 1, hour, 3, 0, 1000, hour, 2, new long[0],
		     new long[0]);
		emit("one-two-three", 1, 3, 3, 0, 1, 1000, 1,
		     new long[] { 1, 2, 3 }, new long[] { 1, 1, 1 });
		emit("zeros", 1000, hour, 3, 0, 1, hour, 3,
		     new long[] { 0, 0, 5 }, new long[] { 1, 2, 1 });
		/* Coordinated-omission correction at record time. */
		long[] cv = new long[500], cc = new long[500];
		for (int i = 0; i < 500; i++) {
			cv[i] = Math.min(lognormal(r, 20000, 1.2), 3600000000L);
			cc[i] = 1;
		}
		emit("corrected", 1, 3600000000L, 3, 10000, 1, 3600000000L, 2,
		     cv, cc);
		emit("corrected-95000", 1, 3600000000L, 3, 10000, 1,
		     3600000000L, 3, new long[] { 95000, 1999999 },
		     new long[] { 1, 1 });
		in.close();
		out.close();
	}
}
