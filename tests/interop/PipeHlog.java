/*
 * Read a latlab pipeline .hlog with the official HdrHistogram
 * HistogramLogReader and print, per tag, "<tag> <intervals> <total count>
 * <max>" sorted by tag. Run by tests/pipeline_cli.sh as
 *   java -cp hdrhistogram.jar PipeHlog.java FILE
 */
import java.io.File;
import java.util.Map;
import java.util.TreeMap;
import org.HdrHistogram.EncodableHistogram;
import org.HdrHistogram.Histogram;
import org.HdrHistogram.HistogramLogReader;

public class PipeHlog {
	public static void main(String[] args) throws Exception {
		HistogramLogReader r = new HistogramLogReader(new File(args[0]));
		Map<String, long[]> tags = new TreeMap<>();
		EncodableHistogram e;

		while ((e = r.nextIntervalHistogram()) != null) {
			Histogram h = (Histogram) e;
			String tag = h.getTag() == null ? "-" : h.getTag();
			long[] t = tags.computeIfAbsent(tag, k -> new long[3]);

			t[0]++;
			t[1] += h.getTotalCount();
			t[2] = Math.max(t[2], h.getMaxValue());
		}
		for (Map.Entry<String, long[]> t : tags.entrySet())
			System.out.println(t.getKey() + " " + t.getValue()[0] + " "
					   + t.getValue()[1] + " "
					   + t.getValue()[2]);
	}
}
