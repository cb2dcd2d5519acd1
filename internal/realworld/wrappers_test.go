package realworld

var wrapperTests = map[string]string{}
