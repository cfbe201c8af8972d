Almanac.runAndExit()
