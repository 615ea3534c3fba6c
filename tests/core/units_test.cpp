#include "rocesim/core/units.hpp"

#include <gtest/gtest.h>

namespace rocesim {

TEST(Units, ParsesTimeInEveryUnitExactly) {
  EXPECT_EQ(parse_time("1.5us").ps(), 1'500'000);
  EXPECT_EQ(parse_time("300ns").ps(), 300'000);
  EXPECT_EQ(parse_time("5ms").ps(), 5'000'000'000);
  EXPECT_EQ(parse_time("2s").ps(), 2'000'000'000'000);
  EXPECT_EQ(parse_time("7ps").ps(), 7);
  EXPECT_EQ(parse_time("0.001ns").ps(), 1);
}

TEST(Units, ParsesDecimalAndBinarySizes) {
  EXPECT_EQ(parse_bytes("150KB").count(), 150'000);
  EXPECT_EQ(parse_bytes("2MiB").count(), 2 * 1024 * 1024);
  EXPECT_EQ(parse_bytes("9216B").count(), 9216);
  EXPECT_EQ(parse_bytes("1.5MB").count(), 1'500'000);
  EXPECT_EQ(parse_bytes("16MB").count(), 16'000'000);
}

TEST(Units, ParsesRates) {
  EXPECT_EQ(parse_rate("400Gbps").bps(), 400'000'000'000);
  EXPECT_EQ(parse_rate("25Gbps").bps(), 25'000'000'000);
  EXPECT_EQ(parse_rate("40Mb/s").bps(), 40'000'000);
}

TEST(Units, RejectsBadUnitsAndValues) {
  EXPECT_THROW(parse_time("5 parsecs"), UnitError);
  EXPECT_THROW(parse_time("0.5ps"), UnitError);  // not a whole picosecond
  EXPECT_THROW(parse_time("-1us"), UnitError);
  EXPECT_THROW(parse_time("us"), UnitError);
  EXPECT_THROW(parse_time("10"), UnitError);  // a unit is required
  EXPECT_THROW(parse_bytes("0.5B"), UnitError);
  EXPECT_THROW(parse_rate("0Gbps"), UnitError);
  EXPECT_THROW(parse_rate("100GHz"), UnitError);
}

TEST(Units, PrintsShortestExactForm) {
  EXPECT_EQ(to_string(parse_time("1.5us")), "1.5us");
  EXPECT_EQ(to_string(Time::ns(300)), "300ns");
  EXPECT_EQ(to_string(Bytes(150'000)), "150KB");
  EXPECT_EQ(to_string(Bytes(2 * 1024 * 1024)), "2MiB");
  EXPECT_EQ(to_string(Bytes(9216)), "9KiB");
  EXPECT_EQ(to_string(Bytes(9200)), "9.2KB");
  EXPECT_EQ(to_string(Rate::gbps(400)), "400Gbps");
  for (const char* s : {"1.5us", "83.885us", "0ns"}) {
    EXPECT_EQ(to_string(parse_time(s)), s);
  }
  for (const char* s : {"150KB", "2MiB", "1.5MB"}) {
    EXPECT_EQ(to_string(parse_bytes(s)), s);
  }
}

TEST(Units, SerialisationTimeIsBytesTimesEightOverRate) {
  // One byte is 80 ps at 100 Gb/s, 20 ps at 400 Gb/s, 320 ps at 25 Gb/s.
  EXPECT_EQ(Rate::gbps(100).tx_time(Bytes(1)).ps(), 80);
  EXPECT_EQ(Rate::gbps(400).tx_time(Bytes(4178)).ps(), 4178 * 20);
  EXPECT_EQ(Rate::gbps(25).tx_time(Bytes(1000)).ps(), 320'000);
  // Rounded up: 1 byte at 3 b/s is 8/3 s.
  EXPECT_EQ(Rate::bps(3).tx_time(Bytes(1)).ps(), 2'666'666'666'667);
  EXPECT_EQ(Rate::gbps(100).bytes_in(Time::us(1)).count(), 12'500);
}

TEST(Units, PicosecondsPerByteIsWholeOnlyWhenTheRateDividesEightTerabits) {
  // 8 x 10^12 bit-picoseconds per second over the rate: 80 ps at 100 Gb/s, 20 at 400, 320 at 25, 800 at 10.
  EXPECT_EQ(Rate::gbps(100).ps_per_byte(), 80);
  EXPECT_EQ(Rate::gbps(400).ps_per_byte(), 20);
  EXPECT_EQ(Rate::gbps(25).ps_per_byte(), 320);
  EXPECT_EQ(Rate::gbps(10).ps_per_byte(), 800);
  // 3 Gb/s is 2,666.67 ps per byte, 0 b/s none: no whole number, so callers divide.
  EXPECT_EQ(Rate::gbps(3).ps_per_byte(), 0);
  EXPECT_EQ(Rate().ps_per_byte(), 0);
  // Where it is whole, bytes times it is exactly the serialisation time.
  for (const Rate r : {Rate::gbps(100), Rate::gbps(400), Rate::gbps(25), Rate::gbps(200), Rate::gbps(800)}) {
    for (const int64_t n : {1, 64, 84, 1084, 4178, 9238}) {
      EXPECT_EQ(n * r.ps_per_byte(), r.tx_time(Bytes(n)).ps()) << r.bps() << " bps, " << n << " bytes";
    }
  }
}

TEST(Units, AcceptsExponentsAsYamlWritesThemAndRefusesWhatOverflows) {
  EXPECT_EQ(parse_time("1e+3ms").ps(), 1'000'000'000'000);
  EXPECT_EQ(parse_time("1.5E3ns").ps(), 1'500'000);
  EXPECT_EQ(parse_bytes("2e6B").count(), 2'000'000);
  EXPECT_EQ(parse_time("15e-1us").ps(), 1'500'000);
  const auto message = [](const std::string& s) {
    try {
      parse_time(s);
    } catch (const UnitError& e) {
      return e.message;
    }
    return std::string();
  };
  EXPECT_NE(message("1e+300ms").find("too large"), std::string::npos) << message("1e+300ms");
  EXPECT_NE(message("1e-300ms").find("decimal places"), std::string::npos) << message("1e-300ms");
  EXPECT_THROW(parse_bytes("1e19B"), UnitError);  // above int64: not a wrapped negative size
  EXPECT_THROW(parse_time("1e-13s"), UnitError);  // below a picosecond
}

}  // namespace rocesim
