alpha epsilon kappa epsilon alpha delta gamma eta kappa lambda kappa beta
alpha gamma delta theta epsilon alpha kappa zeta epsilon eta beta beta
beta delta kappa lambda delta alpha kappa zeta zeta kappa theta gamma
kappa theta kappa gamma eta gamma lambda gamma epsilon delta kappa delta
mu delta gamma mu lambda iota delta lambda eta theta kappa beta
eta alpha beta beta alpha iota epsilon delta mu mu eta epsilon
