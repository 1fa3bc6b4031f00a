package app

// StartPaceWidth is how many booting nodes Start all runs at once here.
func StartPaceWidth() int { return startPace.width }
