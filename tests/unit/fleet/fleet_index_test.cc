// The fleet index page's run line and units (report/fleet_index.h): the run id, its start in UTC,
// links to the previous nights' index pages, and the unit of every number. A fleet run that fills
// them, moved with its previous night, is in fleet_test.cc.
#include "frfit/report/fleet_index.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "frfit/fleet/fleet_run.h"
#include "src/fleet/fleet_spread.h"

namespace frfit {
namespace {

FleetRobotOutcome Robot(const std::string& name, double k, const std::string& k_unit) {
  FleetRobotOutcome r;
  r.name = name;
  r.status = "ok";
  r.parameter_names = {"k_z1", "eta_z1"};
  r.parameter_units = {k_unit, "1"};
  r.parameters = {k, 0.02};
  return r;
}

TEST(FleetIndex, NamesTheRunItsStartAndThePreviousNights) {
  FleetIndexRun run;
  run.run_id = "2026-11-23T031500Z";
  run.started_utc = "2026-11-23T03:15:00Z";
  run.previous = {{"night <1>", "../my runs/night#1 100%/index.html"},
                  {"2026-11-22T031500Z", "/srv/fleet/runs/2026-11-22T031500Z/index.html"}};
  const std::string html = RenderFleetIndex({}, {}, "frfit fleet", run);
  EXPECT_NE(html.find("<p class=\"run-info\">run <span class=\"run-id\">2026-11-23T031500Z</span>"
                      " &#183; started <time datetime=\"2026-11-23T03:15:00Z\">2026-11-23 "
                      "03:15:00 UTC</time> &#183; previous nights: "),
            std::string::npos)
      << html;
  // A relative link stays relative; what a URL cannot hold as it is gets percent-encoded.
  EXPECT_NE(html.find("<a class=\"previous-night\" href=\"../my%20runs/night%231%20100%25/"
                      "index.html\">night &lt;1&gt;</a>, "),
            std::string::npos)
      << html;
  EXPECT_NE(html.find("href=\"/srv/fleet/runs/2026-11-22T031500Z/index.html\">"),
            std::string::npos);
  // Above the table.
  EXPECT_LT(html.find("class=\"run-info\""), html.find("<table"));

  // One previous night reads in the singular; nothing given, no line.
  run.previous.resize(1);
  EXPECT_NE(RenderFleetIndex({}, {}, "frfit fleet", run).find("previous night: <a"),
            std::string::npos);
  EXPECT_EQ(RenderFleetIndex({}).find("class=\"run-info\""), std::string::npos);
}

TEST(FleetIndex, EveryNumberHasItsUnit) {
  FleetReport report;
  report.robots = {Robot("a", 2e6, "N*m/rad"), Robot("b", 3e6, "N*m/rad"),
                   Robot("c", 4e6, "N/m")};  // another model's k_z1: both units named
  const std::vector<FleetParameterSpread> spread = FleetSpread(report);
  ASSERT_EQ(spread.size(), 2u);
  EXPECT_EQ(spread[0].unit, "N*m/rad, N/m");
  EXPECT_EQ(spread[1].unit, "1");
  EXPECT_EQ(FleetSpreadJson(spread)[1].value("unit", ""), "1");

  FleetIndexRow row;
  row.robot = "a";
  row.cost = 0.5;
  const std::string html = RenderFleetIndex({row}, spread);
  EXPECT_NE(html.find("<th>cost <span class=\"unit-note\">(dimensionless)</span></th>"),
            std::string::npos);
  EXPECT_NE(html.find("<th>parameter</th><th>unit</th><th>min</th>"), std::string::npos);
  EXPECT_NE(html.find("<td class=\"parameter\">k_z1</td><td class=\"unit\">N*m/rad, N/m</td>"),
            std::string::npos)
      << html;
  EXPECT_NE(html.find("<td class=\"parameter\">eta_z1</td><td class=\"unit\">1</td>"),
            std::string::npos);
}

}  // namespace
}  // namespace frfit
